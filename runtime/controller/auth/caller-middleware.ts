/**
 * Who calls each `/aps/2` route that does not ask for application credentials itself: an
 * application instance by its credentials (application-caller.ts), else the holder of the
 * APS-Token (caller.ts); a call with neither is refused there.
 */
import type { MiddlewareHandler } from "hono";
import type { ControllerEnv } from "../context.ts";
import type { ApplicationCallers } from "./application-caller.ts";
import type { CallerResolver } from "./caller.ts";
import { requestSource } from "./request-source.ts";

export function callerMiddleware(
  callers: CallerResolver,
  applicationCallers: ApplicationCallers | undefined,
): MiddlewareHandler<ControllerEnv> {
  return async (c, next) => {
    const resolving = applicationCallers?.resolve(c as never);
    const application = resolving ? await resolving : undefined;
    const caller = application ?? (await callers.resolve(c.req.header("aps-token"), requestSource(c)));
    // A copy: the resolved caller may be cached and shared by other requests.
    c.set("caller", { ...caller, request: c.get("request") });
    await next();
    // A sub-request an application sends with its transaction id joins that transaction; the reply says so.
    const tx = application && c.req.header("aps-transaction-id");
    if (tx) c.res.headers.set("APS-Transaction-ID", tx);
  };
}
