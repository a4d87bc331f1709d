/**
 * What code deep inside a request (the forwarder's endpoint calls) needs to know about it: its
 * id and its logger. It travels explicitly, on the request's {@link Caller} and from there on the
 * forward origin (forward/forwarder.ts), not in AsyncLocalStorage: on Node 20 and 22 that turns
 * on a promise hook for every promise of the process, which measured about 20% more CPU per
 * `GET /aps/2/resources/{id}` on PostgreSQL. Background work (task runner, event deliverer,
 * reconciler) has no request and no scope.
 */
import type { Logger } from "pino";

/** One request being served. */
export interface RequestScope {
  readonly requestId: string;
  /** The request's logger: its lines carry `requestId`, and `transactionId` once one is known. */
  readonly log: Logger;
  /** The APS transaction of the request: the one it came with, or the first one it started. */
  transactionId?: string;
  /** The logger if it was made already (it is made on first use of `log`). */
  logged?(): Logger | undefined;
}

/**
 * Records the transaction a request takes part in: the first one wins, and from then on every
 * line of the request's logger carries it (a request that starts several names the others on
 * their own lines).
 */
export function joinTransaction(scope: RequestScope, transactionId: string): void {
  if (scope.transactionId) return;
  scope.transactionId = transactionId;
  // A logger made before now learns it; one made later is made with it (request-log.ts).
  if (scope.logged?.()) scope.log.setBindings({ transactionId });
}
