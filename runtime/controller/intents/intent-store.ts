/**
 * Provisioning intents (issue 15, items 12 and 14): before the controller asks an application
 * to create a resource, it commits what it needs to undo that call (resource id, type, instance,
 * transaction id). The statement that stores the resource removes the intent
 * (store/resource-store.ts); a provisioning that fails after the application may have created
 * something removes it once the application was told to delete it. An intent still there after
 * its lease belongs to a controller that died between the application's answer and its own
 * commit: the reconciler (intent-reconciler.ts) undoes it at the application.
 */
import { pgArray } from "../events/outbox.ts";
import { executePrepared, rowsOf, type Db } from "../store/open-database.ts";

/** What is needed to undo a provisioning at the application. */
export interface ProvisioningIntent {
  readonly resourceId: string;
  readonly typeId: string;
  readonly instanceId: string;
  readonly transactionId: string;
  /**
   * What the application may read while it creates the resource, besides what it reaches
   * already: the resources the new one will be linked to, its subscription and its owner
   * account (role-sql.ts reachedByInstance). Only while the intent lasts: once the resource is
   * stored, its links say the same.
   */
  readonly reaches?: readonly string[];
}

/** An intent the reconciler took, with how often it was tried. */
export interface DueIntent extends ProvisioningIntent {
  readonly attempts: number;
}

// Intents travel as arrays: one statement text (planned once) for any number of them.
// Each intent's `reaches` travels as one comma-separated text (arrays of arrays must be rectangular).
// The intent's transaction (forward/transaction-store.ts) goes in the same statement: one commit before the call, not two.
const RECORD = `with x as (select * from unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $6::text[]) as x(id, type, instance, tx, reaches)),
  issued as (insert into transactions (id, resource_id, type_id, instance_id, expires) select x.tx::uuid, x.id, x.type, x.instance, now() + $7 * interval '1 millisecond' from x)
  insert into provisioning_intents (resource_id, type_id, instance_id, transaction_id, operation, lease_until, reaches)
  select x.id, x.type, x.instance, x.tx, 'provision', now() + $5 * interval '1 millisecond', coalesce(string_to_array(nullif(x.reaches, ''), ',')::uuid[], '{}')
  from x`;
// Leftovers of any process; the new lease keeps a second reconciler off it while this one works.
const CLAIM_DUE = `update provisioning_intents p set lease_until = now() + $2 * interval '1 millisecond', attempts = p.attempts + 1
  from (select resource_id from provisioning_intents where lease_until < now() order by lease_until limit $1 for update skip locked) due
  where p.resource_id = due.resource_id
  returning p.resource_id, p.type_id, p.instance_id, p.transaction_id, p.attempts`;

/** Intents over one database. */
export class IntentStore {
  /** Intents waiting for the next write, with whoever waits for it. */
  private batch: { intent: ProvisioningIntent; done: (error?: unknown) => void }[] = [];

  constructor(
    private readonly db: Db,
    /** How long a provisioning may take from its intent to its commit: the endpoint time-out and some. */
    readonly leaseMs: number,
    /** How long the transaction recorded with an intent is honoured (forward/transaction-store.ts `validMs`). */
    private readonly transactionValidMs: number,
  ) {}

  /**
   * Commits the intent and its transaction (a row of `transactions` with the intent's transaction
   * id, resource, type and instance), in a statement of its own: both must be there before the
   * call, the intent to outlive a crash during it, the transaction for the application's calls
   * back. The transaction id must be a UUID.
   * Intents recorded in the same turn of the event loop share one statement: under load the
   * provisioning hot path costs one round trip more, not one statement more per request.
   */
  record(intent: ProvisioningIntent): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.batch.length === 0) setImmediate(() => void this.flush());
      this.batch.push({ intent, done: (error) => (error === undefined ? resolve() : reject(error)) });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    const column = (f: (i: ProvisioningIntent) => string) => pgArray(batch.map((b) => f(b.intent)));
    try {
      await executePrepared(this.db, {
        text: RECORD,
        values: [
          column((i) => i.resourceId),
          column((i) => i.typeId),
          column((i) => i.instanceId),
          column((i) => i.transactionId),
          this.leaseMs,
          column((i) => (i.reaches ?? []).join(",")),
          this.transactionValidMs,
        ],
      });
      for (const b of batch) b.done();
    } catch (error) {
      for (const b of batch) b.done(error ?? new Error("recording provisioning intents failed"));
    }
  }

  /** The provisioning ended, and the application holds nothing the controller does not know. */
  async drop(resourceId: string): Promise<void> {
    await executePrepared(this.db, {
      text: "delete from provisioning_intents where resource_id = $1::uuid",
      values: [resourceId],
    });
  }

  /** Up to `limit` intents past their lease, leased anew (`retryMs`) to the caller. */
  async claimDue(limit: number, retryMs: number): Promise<DueIntent[]> {
    const rows = rowsOf<{
      resource_id: string;
      type_id: string;
      instance_id: string;
      transaction_id: string;
      attempts: number;
    }>(await executePrepared(this.db, { text: CLAIM_DUE, values: [limit, retryMs] }));
    return rows.map((r) => ({
      resourceId: r.resource_id,
      typeId: r.type_id,
      instanceId: r.instance_id,
      transactionId: r.transaction_id,
      attempts: Number(r.attempts),
    }));
  }

  /** Why the last attempt to undo it failed; it is tried again in `retryMs`. */
  async failed(resourceId: string, error: string, retryMs: number): Promise<void> {
    await executePrepared(this.db, {
      text: "update provisioning_intents set last_error = $2, lease_until = now() + $3 * interval '1 millisecond' where resource_id = $1::uuid",
      values: [resourceId, error.slice(0, 1000), retryMs],
    });
  }

  /** Whether the resource of an intent was stored after all (then there is nothing to undo). */
  async resourceStored(resourceId: string): Promise<boolean> {
    return (
      rowsOf(
        await executePrepared(this.db, {
          text: "select 1 as one from resources where id = $1::uuid",
          values: [resourceId],
        }),
      ).length > 0
    );
  }

  /** The intents still open (for tests and the operator). */
  async pending(): Promise<(ProvisioningIntent & { attempts: number; lastError: string | null })[]> {
    const rows = rowsOf<{
      resource_id: string;
      type_id: string;
      instance_id: string;
      transaction_id: string;
      attempts: number;
      last_error: string | null;
    }>(
      await executePrepared(this.db, {
        text: "select resource_id, type_id, instance_id, transaction_id, attempts, last_error from provisioning_intents order by created",
        values: [],
      }),
    );
    return rows.map((r) => ({
      resourceId: r.resource_id,
      typeId: r.type_id,
      instanceId: r.instance_id,
      transactionId: r.transaction_id,
      attempts: Number(r.attempts),
      lastError: r.last_error,
    }));
  }
}
