/** Where a request comes from, as failed token verifications are counted (failed-verification-limiter.ts). */
import type { HttpBindings } from "@hono/node-server";

/**
 * The remote address of the request's socket; `unknown` where there is none (requests made in
 * process with `app.request`). Forwarding headers are not trusted: any client can send them.
 */
export function requestSource(c: { readonly env: unknown }): string {
  return (c.env as Partial<HttpBindings> | undefined)?.incoming?.socket?.remoteAddress ?? "unknown";
}
