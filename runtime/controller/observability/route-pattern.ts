/**
 * The route a request was for, as its pattern (`/aps/2/resources/:id`), never the raw URL: what
 * metrics label requests by, so the number of series stays bounded by the routes the controller
 * has, whatever ids and paths callers send.
 */
import type { Context } from "hono";
import { matchedRoutes, routePath } from "hono/route";

/** Requests no route serves (the 404 of the app's not-found handler). */
const UNMATCHED_ROUTE = "unmatched";

/** Call after `next()`, when the response is known. */
export function routePattern(c: Context): string {
  // Middleware is registered for ALL methods; the first route of a method is the handler that
  // answers (or would have, when a middleware before it refused the call: a 401 is still counted
  // under the route it was for).
  const handler = matchedRoutes(c).find((r) => r.method !== "ALL");
  if (handler) return handler.path;
  if (c.res.status === 404) return UNMATCHED_ROUTE;
  // Answered by an ALL route (the 405 of /aps/2/resources/*) or a middleware: its pattern.
  return routePath(c, c.req.routeIndex) || UNMATCHED_ROUTE;
}
