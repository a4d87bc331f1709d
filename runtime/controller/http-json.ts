/** JSON in and out of the controller, exact for 64-bit integers both ways. */
import type { Context } from "hono";
import { parseJsonText, stringifyJson } from "../common/json-text.ts";
import { ApsError } from "./errors.ts";

/** Largest request body the controller reads (bytes). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The request body as JSON; 400 when it is not JSON, 413 when too large, 415 when declared otherwise. */
export async function readJsonBody(c: Context): Promise<unknown> {
  const type = c.req.header("content-type");
  if (type && !/^application\/([\w.+-]*\+)?json\b/i.test(type)) throw new ApsError(415, `The body must be application/json, not ${type}.`);
  const length = Number(c.req.header("content-length") ?? 0);
  if (length > MAX_BODY_BYTES) throw new ApsError(413, `The body has ${length} bytes; the controller accepts at most ${MAX_BODY_BYTES}.`);
  const text = await c.req.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw new ApsError(413, `The body is larger than the ${MAX_BODY_BYTES} bytes the controller accepts.`);
  if (text.trim() === "") throw new ApsError(400, "The body is empty; send a JSON object.");
  try {
    return parseJsonText(text);
  } catch (error) {
    throw new ApsError(400, `The body is not valid JSON: ${(error as Error).message}.`);
  }
}

/** A JSON response; bigints are written as exact integers. */
export function sendJson(c: Context, value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(stringifyJson(value), { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });
}

/** `items FIRST-LAST/TOTAL` for a page of `count` items from `start` (SPEC 4.6); an empty page has `*` for FIRST-LAST. */
export function contentRange(start: number, count: number, total: number): string {
  return count > 0 ? `items ${start}-${start + count - 1}/${total}` : `items */${total}`;
}
