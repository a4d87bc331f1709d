/**
 * Headers every reply of the controller carries (issue 15 item 22): `X-Content-Type-Options:
 * nosniff`, so a browser never reads a JSON reply or a package file as HTML or script, and
 * `Cache-Control: no-store`, so replies that hold resources, tokens or secrets stay out of
 * browser and proxy caches. A route that says how its reply may be cached keeps its own. A reply
 * given before its request's body has all arrived also says `Connection: close`
 * (request-body.ts says why).
 *
 * JSON replies (support/http-json.ts `sendJson`) are made with these headers and the request id
 * already in them, as one plain object: @hono/node-server writes such a reply straight to the
 * socket, whereas touching `headers` of a finished reply turns them into a `Headers` object and
 * costs the reply its fast path (a tenth of a GET's time, measured in docs/performance.md). The
 * middleware adds them afterwards to every other reply.
 */
import type { Context, MiddlewareHandler } from "hono";
import { REQUEST_ID_HEADER } from "../../common/request-id.ts";
import type { ControllerEnv } from "../context.ts";
import { bodyStillArriving } from "./request-body.ts";

/** Marks a reply made with every header of this module (and the request id) in it. */
const COMPLETE = Symbol("reply headers in place");
type Marked = Response & { [COMPLETE]?: true };

/** A reply with `body`, `status` and `headers` plus the ones every reply carries, marked so that no middleware touches its headers again. */
export function completeReply(
  c: Context,
  body: string,
  status: number,
  headers: Readonly<Record<string, string>>,
): Response {
  const requestId = (c as Context<ControllerEnv>).get("request")?.requestId;
  const all: Record<string, string> = { "x-content-type-options": "nosniff", "cache-control": "no-store" };
  if (requestId) all[REQUEST_ID_HEADER.toLowerCase()] = requestId;
  for (const name in headers) all[name.toLowerCase()] = headers[name]!;
  if (bodyStillArriving(c)) all.connection = "close";
  const reply: Marked = new Response(body, { status, headers: all });
  reply[COMPLETE] = true;
  return reply;
}

/** Whether `reply` was made by {@link completeReply}. */
export function isCompleteReply(reply: Response): boolean {
  return (reply as Marked)[COMPLETE] === true;
}

/** The middleware; put it first, so that error and not-found replies get the headers too. */
export function replyHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (isCompleteReply(c.res)) return;
    const headers = c.res.headers;
    headers.set("X-Content-Type-Options", "nosniff");
    if (!headers.has("Cache-Control")) headers.set("Cache-Control", "no-store");
    if (bodyStillArriving(c)) headers.set("Connection", "close");
  };
}
