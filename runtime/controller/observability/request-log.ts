/**
 * One log line per request, and a request id on every line logged while serving it (issue 18):
 * the id comes from `X-Request-ID` when well formed (common/request-id.ts), else is new, and goes
 * back in the reply's `X-Request-ID`. An `APS-Transaction-ID` the caller sent (an application's
 * sub-request) is on the lines too; one the controller starts while serving the request (a
 * provisioning it forwards) is added when it starts (forward/observed-endpoint-call.ts).
 *
 * Bodies are never logged (encrypted values travel in them); neither are tokens or query strings.
 */
import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import { loggableHeaderValue, REQUEST_ID_HEADER, requestIdOf } from "../../common/request-id.ts";
import { urlPath } from "../../common/url-path.ts";
import type { ControllerEnv } from "../context.ts";
import type { RequestScope } from "./request-scope.ts";
import { routePattern } from "./route-pattern.ts";
import { isCompleteReply } from "../support/reply-headers.ts";

/** Probes and scrapes come every few seconds: logged at debug unless they fail. */
const QUIET_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

/** The middleware; put it before every other that may log. */
export function requestLog(logger: Logger): MiddlewareHandler<ControllerEnv> {
  return async (c, next) => {
    const started = performance.now();
    const requestId = requestIdOf(c.req.header(REQUEST_ID_HEADER));
    const transactionId = loggableHeaderValue(c.req.header("aps-transaction-id"));
    const scope = requestScope(logger, requestId, transactionId);
    c.set("request", scope);
    await next();
    if (!isCompleteReply(c.res)) c.res.headers.set(REQUEST_ID_HEADER, requestId);
    const path = urlPath(c.req.url);
    const line = {
      method: c.req.method,
      path,
      route: routePattern(c),
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    };
    const quiet = QUIET_PATHS.has(path) && c.res.status < 400;
    if (quiet && !logger.isLevelEnabled("debug")) return;
    // Most requests log nothing else: their one line needs no child logger of its own.
    const log = scope.logged() ?? logger;
    const fields =
      log === logger
        ? { requestId, ...(scope.transactionId ? { transactionId: scope.transactionId } : {}), ...line }
        : line;
    if (quiet) log.debug(fields, "request");
    else log.info(fields, "request");
  };
}

/** A request's scope whose logger (a pino child with the request's ids) is made when something first logs with it. */
function requestScope(
  logger: Logger,
  requestId: string,
  transactionId: string | undefined,
): RequestScope & { logged(): Logger | undefined } {
  let child: Logger | undefined;
  return {
    requestId,
    ...(transactionId ? { transactionId } : {}),
    get log() {
      return (child ??= logger.child({
        requestId,
        ...(this.transactionId ? { transactionId: this.transactionId } : {}),
      }));
    },
    logged: () => child,
  };
}
