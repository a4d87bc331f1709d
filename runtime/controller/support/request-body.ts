/**
 * Reading request bodies within a limit. A declared `Content-Length` over the limit is refused
 * before a byte is read; a body without one (chunked) is read counting bytes and refused as soon
 * as it passes the limit, so no request holds more than the limit in memory. Handlers take the
 * body lazily ({@link LazyBody}) so a request that fails routing, access or path matching is
 * answered without reading it.
 *
 * A reply given before its request's body has all arrived (such a 413, a 401 to a large upload)
 * says `Connection: close` ({@link bodyStillArriving}): the server then reads and drops the rest
 * for a bounded time before it closes (https-limits.ts, lingering close), so a client still
 * sending reads the reply instead of a broken pipe.
 */
import type { IncomingMessage } from "node:http";
import type { HttpBindings } from "@hono/node-server";
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
    if (!Number.isSafeInteger(length) || length < 0)
      throw new ControllerError(400, `Content-Length ${JSON.stringify(declared.slice(0, 40))} is not a byte count.`);
    if (length > limit)
      throw new ControllerError(413, `The body has ${length} bytes; the controller accepts at most ${limit} here.`);
  }
  // Served by Node: the request stream itself, which (unlike its web stream) can be left to flow into nothing.
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  if (incoming) return readIncoming(incoming, limit);
  return readWebStream(c.req.raw.body, limit);
}

/**
 * True when the request of `c` came over a socket and its body has not all arrived: its reply
 * must close the connection (the rest of the body cannot be told from a next request without
 * reading it all). False in process, without a socket.
 */
export function bodyStillArriving(c: Context): boolean {
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  if (incoming === undefined || incoming.complete) return false;
  // A request without a body is not complete yet while a handler that awaits nothing answers it
  // (Node marks it once the parser returns): it has nothing more to send, and keeps its connection.
  const { "content-length": length, "transfer-encoding": chunked } = incoming.headers;
  return chunked !== undefined || (length !== undefined && length !== "0");
}

function tooLarge(limit: number): ControllerError {
  return new ControllerError(413, `The body is larger than the ${limit} bytes the controller accepts here.`);
}

function readIncoming(incoming: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const stop = () => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("close", onClose);
      incoming.off("error", onClose);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total <= limit) {
        chunks.push(chunk);
        return;
      }
      // Stop keeping it, not reading it: what the client still sends flows into nothing while
      // the 413 goes out (the stream stays flowing without a listener), within the lingering bounds.
      stop();
      chunks.length = 0;
      incoming.resume();
      reject(tooLarge(limit));
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, total));
    };
    const onClose = () => {
      stop();
      reject(new ControllerError(408, "The connection closed before the request body ended."));
    };
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("close", onClose);
    incoming.on("error", onClose);
  });
}

/** In process (Hono's `app.request`): the body as a web stream. */
async function readWebStream(stream: ReadableStream<Uint8Array> | null, limit: number): Promise<Buffer> {
  if (!stream) return Buffer.alloc(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}
