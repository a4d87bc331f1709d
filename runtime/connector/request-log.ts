/**
 * One log line per call the endpoint serves, with the same fields as the controller's
 * (runtime/controller/observability/request-log.ts): `requestId` (the controller sends its
 * request's `X-Request-ID`, so one id finds a call in both logs) and `transactionId` (the call's
 * `APS-Transaction-ID`). The id is echoed in the reply. Handlers get the request's logger as
 * `ctx.log`, so their own lines carry both too. Bodies are never logged (they carry the
 * instance's credentials on install).
 */
import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import { loggableHeaderValue, REQUEST_ID_HEADER, requestIdOf } from "../common/request-id.ts";
import { urlPath } from "../common/url-path.ts";

/** What the middleware puts on the context. */
export interface RequestLogVariables {
  requestId: string;
  log: Logger;
}

export function connectorRequestLog(logger: Logger): MiddlewareHandler<{ Variables: RequestLogVariables }> {
  return async (c, next) => {
    const started = performance.now();
    const requestId = requestIdOf(c.req.header(REQUEST_ID_HEADER));
    const transactionId = loggableHeaderValue(c.req.header("aps-transaction-id"));
    const log = logger.child({ requestId, ...(transactionId ? { transactionId } : {}) });
    c.set("requestId", requestId);
    c.set("log", log);
    await next();
    c.res.headers.set(REQUEST_ID_HEADER, requestId);
    // Headers of a caller not checked yet (the certificate check comes after): bounded before they reach the log.
    const instance = loggableHeaderValue(c.req.header("aps-instance-id"));
    const phase = c.req.header("aps-request-phase");
    log.info(
      {
        method: c.req.method,
        path: urlPath(c.req.url),
        ...(instance ? { instance } : {}),
        ...(phase === "sync" || phase === "async" ? { phase } : {}),
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      },
      "request",
    );
  };
}
