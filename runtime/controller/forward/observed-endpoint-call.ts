/**
 * Every call to an application endpoint, counted, timed and logged (issue 18): one line per call
 * with its APS transaction, on the logger of the request that made it (`options.request`, from
 * the forward origin: so with its request id) or, for background work (async repeats, event
 * notifications, reconciling), the controller's. A call made for a request also carries the
 * request's `X-Request-ID`, so the endpoint's log (the connector runtime's among them) shows the
 * same id.
 */
import type { Logger } from "pino";
import { REQUEST_ID_HEADER } from "../../common/request-id.ts";
import { ControllerError } from "../support/errors.ts";
import { ControllerMetrics, type EndpointOutcome } from "../observability/metrics.ts";
import { joinTransaction } from "../observability/request-scope.ts";
import type { EndpointCallLog } from "../observability/endpoint-call-log.ts";
import type { EndpointCall, EndpointReply } from "./endpoint-client.ts";

/** Also recorded in `calls` (the console's live log, observability/endpoint-call-log.ts) when given. */
export function observedEndpointCall(
  call: EndpointCall,
  metrics: ControllerMetrics,
  logger: Logger,
  calls?: EndpointCallLog,
): EndpointCall {
  return async (target, method, path, headers, body, safety) => {
    const scope = safety?.request;
    const transactionId = headers["APS-Transaction-ID"];
    if (scope && transactionId) joinTransaction(scope, transactionId);
    const log = scope?.log ?? logger;
    const sent = scope ? { ...headers, [REQUEST_ID_HEADER]: scope.requestId } : headers;
    const at = new Date();
    const started = performance.now();
    let outcome: EndpointOutcome = "unreachable";
    let status: number | undefined;
    let reply: EndpointReply | undefined;
    let failure: string | undefined;
    try {
      reply = await call(target, method, path, sent, body, safety);
      status = reply.status;
      outcome = ControllerMetrics.outcomeOf(reply.status);
      return reply;
    } catch (error) {
      // endpoint-client.ts turns time-outs into 504s and every other failure to get a reply into 502s.
      if (error instanceof ControllerError && error.status === 504) outcome = "timeout";
      failure = (error as Error).message;
      throw error;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      metrics.endpointCalls.inc({ method, outcome });
      metrics.endpointCallSeconds.observe({ method, outcome }, seconds);
      // The query is left out: custom operations carry arguments there.
      const line = {
        instance: target.instanceId,
        method,
        path: path.split("?")[0],
        outcome,
        ...(status !== undefined ? { status } : {}),
        ms: Math.round(seconds * 10_000) / 10,
        ...transactionField(scope?.transactionId, transactionId),
      };
      if (outcome === "timeout" || outcome === "unreachable" || outcome === "5xx") log.warn(line, "application call");
      else log.info(line, "application call");
      calls?.record({
        at,
        instance: target.instanceId,
        method,
        path,
        headers: sent,
        ...(body ? { body } : {}),
        ...(status !== undefined ? { status } : {}),
        outcome,
        ms: line.ms,
        ...(reply ? { replyBody: reply.body } : {}),
        ...(failure ? { error: failure } : {}),
      });
    }
  };
}

/**
 * The call's transaction on its line: `transactionId` outside a request; nothing more when the
 * request's lines already carry it; `callTransactionId` when the request is in another one (an
 * application's sub-request that makes the controller call an endpoint), so no line has two
 * `transactionId` keys.
 */
function transactionField(
  requestTransaction: string | undefined,
  callTransaction: string | undefined,
): Record<string, string> {
  if (!callTransaction || requestTransaction === callTransaction) return {};
  return requestTransaction ? { callTransactionId: callTransaction } : { transactionId: callTransaction };
}
