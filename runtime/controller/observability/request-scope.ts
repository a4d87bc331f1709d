/**
 * What code deep inside a request (the forwarder's endpoint calls) needs to know about it: its
 * id and its logger. Kept in AsyncLocalStorage, so the services between the route and the
 * endpoint client need no extra parameter; background work (task runner, event deliverer,
 * reconciler) runs outside any request and finds none.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Logger } from "pino";

/** One request being served. */
export interface RequestScope {
  readonly requestId: string;
  /** The request's logger: its lines carry `requestId`, and `transactionId` once one is known. */
  readonly log: Logger;
  /** The APS transaction of the request: the one it came with, or the first one it started. */
  transactionId?: string;
}

const scopes = new AsyncLocalStorage<RequestScope>();

/** Runs `work` as part of the request `scope`. */
export function inRequestScope<T>(scope: RequestScope, work: () => Promise<T>): Promise<T> {
  return scopes.run(scope, work);
}

/** The request this code runs for, if any. */
export function currentRequestScope(): RequestScope | undefined {
  return scopes.getStore();
}

/**
 * Records the transaction a request takes part in: the first one wins, and from then on every
 * line of the request's logger carries it (a request that starts several names the others on
 * their own lines).
 */
export function joinTransaction(scope: RequestScope, transactionId: string): void {
  if (scope.transactionId) return;
  scope.transactionId = transactionId;
  scope.log.setBindings({ transactionId });
}
