/**
 * Reading request bodies within a limit. A declared `Content-Length` over the limit is refused
 * before a byte is read; a body without one (chunked) is read counting bytes and refused as soon
 * as it passes the limit, so no request holds more than the limit in memory. Handlers take the
 * body lazily ({@link LazyBody}) so a request that fails routing, access or path matching is
 * answered without reading it (@hono/node-server discards what is left unread).
 */
import type { Context } from "hono";
import { ControllerError } from "./errors.ts";

/** Largest body of a request to the controller (bytes), unless a route says otherwise (package import). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** A request body not read yet. */
export interface LazyBody {
  /** The media type the caller declared, undefined when it sent none (passed on as it came, none made up). */
  readonly contentType: string | undefined;
  /** The bytes, read once (413 past the limit); later calls give the same bytes. */
  read(): Promise<Buffer>;
}

/** The body of `c` as a {@link LazyBody}, or undefined for GET and DELETE (their bodies are ignored). */
export function lazyBody(c: Context, limit = MAX_BODY_BYTES): LazyBody | undefined {
  if (c.req.method === "GET" || c.req.method === "DELETE" || c.req.method === "HEAD") return undefined;
  let bytes: Promise<Buffer> | undefined;
  return { contentType: c.req.header("content-type"), read: () => (bytes ??= readBodyBytes(c, limit)) };
}

/** The body's bytes, at most `limit` of them; ControllerError(413) when it declares or sends more. */
export async function readBodyBytes(c: Context, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = c.req.header("content-length");
  if (declared !== undefined && declared.trim() !== "") {
    const length = Number(declared);
    if (!Number.isSafeInteger(length) || length < 0) throw new ControllerError(400, `Content-Length ${JSON.stringify(declared.slice(0, 40))} is not a byte count.`);
    if (length > limit) throw new ControllerError(413, `The body has ${length} bytes; the controller accepts at most ${limit} here.`);
  }
  const stream = c.req.raw.body;
  if (!stream) return Buffer.alloc(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      // Stop reading: what the client still sends is discarded by the server, never held.
      await reader.cancel().catch(() => {});
      throw new ControllerError(413, `The body is larger than the ${limit} bytes the controller accepts here.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}
