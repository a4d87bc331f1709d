/** JSON in and out of the controller, exact for 64-bit integers both ways. */
import type { Context } from "hono";
import { parseJsonText, stringifyJson } from "../common/json-text.ts";
import { MAX_JSON_NESTING, nestsDeeperThan } from "../common/json-nesting.ts";
import { ApsError } from "./errors.ts";
import { readBodyBytes } from "./request-body.ts";

/** The request body as JSON; 400 when it is not JSON, 413 past MAX_BODY_BYTES (request-body.ts), 415 when declared otherwise. */
export async function readJsonBody(c: Context): Promise<unknown> {
  const type = c.req.header("content-type");
  if (type && !/^application\/([\w.+-]*\+)?json\b/i.test(type)) throw new ApsError(415, `The body must be application/json, not ${type}.`);
  const text = (await readBodyBytes(c)).toString("utf8");
  if (text.trim() === "") throw new ApsError(400, "The body is empty; send a JSON object.");
  return parseRequestJson(text);
}

/**
 * JSON text from a request as a value; ApsError(400) when it is not JSON, nests deeper than
 * {@link MAX_JSON_NESTING} (checked before parsing: deep nesting overflows the stack of the parser
 * or of what walks the value later) or holds U+0000 in a string or name (PostgreSQL text and jsonb
 * cannot store it).
 */
export function parseRequestJson(text: string): unknown {
  if (nestsDeeperThan(text)) throw new ApsError(400, `The body nests arrays and objects more than ${MAX_JSON_NESTING} levels deep; the controller accepts at most ${MAX_JSON_NESTING}.`);
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (error) {
    throw new ApsError(400, `The body is not valid JSON: ${(error as Error).message}.`);
  }
  // A NUL can only come from a \u0000 escape (a raw one is a syntax error), so most bodies skip the walk.
  if (/\\u0000/i.test(text)) {
    const at = nulPath(value, "");
    if (at !== undefined) throw new ApsError(400, `The body holds the character U+0000 (NUL) ${at ? `at ${at}` : "in a value"}; text values cannot contain it.`, [{ path: at, code: "type", message: "contains U+0000 (NUL)" }]);
  }
  return value;
}

/** The path of the first string or member name holding U+0000, or undefined. Depth is bounded by the nesting check. */
function nulPath(value: unknown, path: string): string | undefined {
  if (typeof value === "string") return value.includes("\0") ? path : undefined;
  if (value === null || typeof value !== "object") return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulPath(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, member] of Object.entries(value)) {
    const here = path ? `${path}.${key.replace(/\0/g, "\\u0000")}` : key.replace(/\0/g, "\\u0000");
    if (key.includes("\0")) return here;
    const found = nulPath(member, here);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A JSON response; bigints are written as exact integers. */
export function sendJson(c: Context, value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(stringifyJson(value), { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });
}

/** `items FIRST-LAST/TOTAL` for a page of `count` items from `start` (SPEC 4.6); an empty page has `*` for FIRST-LAST. */
export function contentRange(start: number, count: number, total: number): string {
  return count > 0 ? `items ${start}-${start + count - 1}/${total}` : `items */${total}`;
}
