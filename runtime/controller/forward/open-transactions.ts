/**
 * Provisioning calls in flight in this process, by `APS-Transaction-ID`. While the application
 * creates a resource, the resource is not stored yet (only what the application accepts is), and
 * during an install not even the instance is; an application that subscribes to events in that
 * call (SPEC 6.1) sends the transaction id back, and finds its subscriptions staged here. They are
 * stored with the resource, in its transaction, or dropped with it.
 *
 * The registry is per process: such a call-back must reach the controller process that runs the
 * provisioning (one process, or sticky routing by transaction). Once a 202 stored the resource,
 * any process serves it.
 */
import type { subscriptions } from "../store/schema.ts";

/** A subscription waiting for its subscriber to be stored. */
export type StagedSubscription = typeof subscriptions.$inferInsert;

/** A provisioning call in flight. */
export interface OpenProvision {
  readonly resourceId: string;
  readonly typeId: string;
  readonly instanceId: string;
  /** The instance certificate's SHA-256 fingerprint, while the instance itself is not stored (install). */
  readonly fingerprint?: string;
  readonly staged: StagedSubscription[];
}

export class OpenTransactions {
  private readonly open = new Map<string, OpenProvision>();

  /** Opens `transactionId` for the duration of `work`. */
  async during<T>(transactionId: string, provision: Omit<OpenProvision, "staged">, work: (open: OpenProvision) => Promise<T>): Promise<T> {
    const entry: OpenProvision = { ...provision, staged: [] };
    this.open.set(transactionId, entry);
    try {
      return await work(entry);
    } finally {
      this.open.delete(transactionId);
    }
  }

  get(transactionId: string | undefined): OpenProvision | undefined {
    return transactionId ? this.open.get(transactionId) : undefined;
  }
}
