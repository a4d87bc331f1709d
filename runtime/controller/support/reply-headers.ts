/**
 * Headers every reply of the controller carries (issue 15 item 22): `X-Content-Type-Options:
 * nosniff`, so a browser never reads a JSON reply or a package file as HTML or script, and
 * `Cache-Control: no-store`, so replies that hold resources, tokens or secrets stay out of
 * browser and proxy caches. A route that says how its reply may be cached keeps its own.
 */
import type { MiddlewareHandler } from "hono";

/** The middleware; put it first, so that error and not-found replies get the headers too. */
export function replyHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const headers = c.res.headers;
    headers.set("X-Content-Type-Options", "nosniff");
    if (!headers.has("Cache-Control")) headers.set("Cache-Control", "no-store");
  };
}
