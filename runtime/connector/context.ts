/**
 * What a connector handler learns about the call it serves (docs/aps/rest-api.md, "Calls to
 * applications"): which instance, which transaction, who asked, which phase, and the call's own
 * data.
 */

import type { Logger } from "pino";

/** The APS headers of a controller call, parsed. */
export interface ApsCallContext {
  /** `APS-Instance-ID`: the instance the call is for (one endpoint may serve several). */
  readonly instanceId: string;
  /** `APS-Transaction-ID`: send it back on sub-requests to join the same transaction. */
  readonly transactionId?: string;
  /** `APS-Controller-URI`: where to reach the controller. */
  readonly controllerUri?: string;
  /** `APS-Identity-ID`: the user who asked, on forwarded user requests. */
  readonly identityId?: string;
  /** `APS-Application-ID`: the calling instance, on app-to-app calls. */
  readonly applicationId?: string;
  /** `APS-Request-Phase`: `sync` on the first call, `async` when the controller repeats it after a 202. */
  readonly phase: "sync" | "async";
  /** The resource id (not on provision of a new resource, nor on static operations). */
  readonly resourceId?: string;
  /** Path parameters of a custom operation, as text. */
  readonly params: Readonly<Record<string, string>>;
  /** Query arguments, as text. */
  readonly query: Readonly<Record<string, string>>;
  /** The call's request id (`X-Request-ID`, the controller's for the same request). */
  readonly requestId?: string;
  /** A logger whose lines carry `requestId` and `transactionId` (request-log.ts). */
  readonly log?: Logger;
}

/** Parses the APS headers of a request. */
export function callContext(
  header: (name: string) => string | undefined,
  extra: {
    resourceId?: string;
    params?: Record<string, string>;
    query?: Record<string, string>;
    requestId?: string;
    log?: Logger;
  },
): ApsCallContext {
  const opt = (name: string) => header(name) ?? undefined;
  const phase = header("aps-request-phase") === "async" ? "async" : "sync";
  return {
    instanceId: header("aps-instance-id") ?? "",
    phase,
    params: extra.params ?? {},
    query: extra.query ?? {},
    ...(opt("aps-transaction-id") ? { transactionId: opt("aps-transaction-id")! } : {}),
    ...(opt("aps-controller-uri") ? { controllerUri: opt("aps-controller-uri")! } : {}),
    ...(opt("aps-identity-id") ? { identityId: opt("aps-identity-id")! } : {}),
    ...(opt("aps-application-id") ? { applicationId: opt("aps-application-id")! } : {}),
    ...(extra.resourceId ? { resourceId: extra.resourceId } : {}),
    ...(extra.requestId ? { requestId: extra.requestId } : {}),
    ...(extra.log ? { log: extra.log } : {}),
  };
}
