/** JSON in and out of the controller, exact for 64-bit integers both ways. */
import type { Context } from "hono";
import { contentRangeHeader } from "../../common/content-range.ts";
import { parseJsonText, stringifyJson } from "../../common/json-text.ts";
import { MAX_JSON_NESTING, nestsDeeperThan } from "../../common/json-nesting.ts";
import { ControllerError } from "./errors.ts";
import { readBodyBytes } from "./request-body.ts";
import { completeReply } from "./reply-headers.ts";

/** The request body as JSON; 400 when it is not JSON, 413 past MAX_BODY_BYTES (request-body.ts), 415 when declared otherwise. */
export async function readJsonBody(c: Context): Promise<unknown> {
  const type = c.req.header("content-type");
  if (type && !/^application\/([\w.+-]*\+)?json\b/i.test(type))
    throw new ControllerError(415, `The body must be application/json, not ${type}.`);
  const text = (await readBodyBytes(c)).toString("utf8");
  if (text.trim() === "") throw new ControllerError(400, "The body is empty; send a JSON object.");
  return parseRequestJson(text);
}

/**
 * JSON text from a request as a value; ControllerError(400) when it is not JSON, nests deeper than
 * {@link MAX_JSON_NESTING} (checked before parsing: deep nesting overflows the stack of the parser
 * or of what walks the value later) or holds text PostgreSQL text and jsonb cannot store in a
 * string or name: U+0000, or half of a surrogate pair (`"\ud800"`, which is not Unicode text).
 */
export function parseRequestJson(text: string): unknown {
  if (nestsDeeperThan(text))
    throw new ControllerError(
      400,
      `The body nests arrays and objects more than ${MAX_JSON_NESTING} levels deep; the controller accepts at most ${MAX_JSON_NESTING}.`,
    );
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (error) {
    throw new ControllerError(400, `The body is not valid JSON: ${(error as Error).message}.`);
  }
  // Both can only come from \u escapes (a raw NUL is a syntax error, UTF-8 decoding never yields half a pair), so most bodies skip the walk.
  if (/\\u(0000|d[89a-f])/i.test(text)) {
    const at = unstorablePath(value, "");
    if (at !== undefined)
      throw new ControllerError(
        400,
        `The body holds U+0000 (NUL) or half of a surrogate pair ${at ? `at ${at}` : "as a value"}; text values cannot contain either.`,
        [{ path: at, code: "type", message: "contains U+0000 (NUL) or an unpaired surrogate" }],
      );
  }
  return value;
}

/** NUL, or a surrogate code unit without its other half. */
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The path of the first string or member name PostgreSQL cannot store, or undefined. Depth is bounded by the nesting check. */
function unstorablePath(value: unknown, path: string): string | undefined {
  if (typeof value === "string") return UNSTORABLE.test(value) ? path : undefined;
  if (value === null || typeof value !== "object") return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorablePath(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, member] of Object.entries(value)) {
    const here = path ? `${path}.${JSON.stringify(key).slice(1, -1)}` : JSON.stringify(key).slice(1, -1);
    if (UNSTORABLE.test(key)) return here;
    const found = unstorablePath(member, here);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A JSON response; bigints are written as exact integers. */
export function sendJson(c: Context, value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return completeReply(c, stringifyJson(value), status, {
    "content-type": "application/json; charset=utf-8",
    ...headers,
  });
}

/** A list reply (docs/aps/rest-api.md, "Lists and Content-Range"): the items, with the `Content-Range` of the page they are; the whole list unless `start` and `total` say otherwise. */
export function sendList(c: Context, items: readonly unknown[], start = 0, total = items.length): Response {
  return sendJson(c, items, 200, { "Content-Range": contentRangeHeader(start, items.length, total) });
}
