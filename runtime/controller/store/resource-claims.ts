/**
 * One configure (or unprovision) of a resource at a time, across controller processes, while
 * the application is called (issue 15, items 9 and 10).
 *
 * Why a claim with a lease and not a row lock held over the call: a transaction open across
 * an HTTP call holds a database connection for up to `--endpoint-timeout`, and so does every
 * request waiting for that lock: a burst of configures on one resource would take the whole
 * pool. A claim is a row in `resource_claims` (migration 0007), written in a statement of its
 * own and dropped in the commit that stores the result; waiting holds no connection. Within a
 * process, waiters queue in memory (first come, first served; no polling); across processes a
 * claim held elsewhere is polled for, and one whose holder died is taken over when its lease
 * ends.
 */
import { randomUUID } from "node:crypto";
import { executePrepared, rowsOf, type Db } from "./open-database.ts";

/**
 * A claim taken. `dropIn(tx)` removes it in the transaction that stores the result; `end(stored)`
 * always follows (in a `finally`): it removes the claim itself unless that transaction committed,
 * and lets the next request of this process go.
 */
export interface Claim {
  dropIn(tx: Db): Promise<void>;
  end(stored: boolean): Promise<void>;
}

const TAKE = `insert into resource_claims (resource_id, holder, operation, until)
  select $1::uuid, $2::uuid, $3, now() + $4 * interval '1 millisecond' from resources where id = $1::uuid
  on conflict (resource_id) do update set holder = excluded.holder, operation = excluded.operation, until = excluded.until where resource_claims.until < now()
  returning holder`;
const DROP = "delete from resource_claims where resource_id = $1::uuid and holder = $2::uuid";

/** Claims on resources over one database. */
export class ResourceClaims {
  /** Per resource, the end of this process's queue. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Db,
    /** Longer than the slowest forward (the endpoint time-out) and the commit after it. */
    private readonly leaseMs: number,
  ) {}

  /**
   * Waits for the resource's turn and claims it for `operation`; undefined when the resource
   * does not exist (any more).
   */
  async acquire(resourceId: string, operation: string): Promise<Claim | undefined> {
    const before = this.queues.get(resourceId) ?? Promise.resolve();
    let done!: () => void;
    const turn = new Promise<void>((resolve) => (done = resolve));
    const tail = before.then(() => turn);
    this.queues.set(resourceId, tail);
    const leave = () => {
      done();
      if (this.queues.get(resourceId) === tail) this.queues.delete(resourceId);
    };
    await before;
    try {
      const holder = randomUUID();
      for (let wait = 20; ; wait = Math.min(wait * 2, 500)) {
        const taken = rowsOf<{ holder: string }>(
          await executePrepared(this.db, { text: TAKE, values: [resourceId, holder, operation, this.leaseMs] }),
        );
        if (taken.length) break;
        // Not taken: another process holds it, or the resource is gone.
        const exists = rowsOf<{ one: number }>(
          await executePrepared(this.db, {
            text: "select 1 as one from resources where id = $1::uuid",
            values: [resourceId],
          }),
        );
        if (!exists.length) {
          leave();
          return undefined;
        }
        await new Promise((r) => setTimeout(r, wait));
      }
      let ended = false;
      return {
        dropIn: async (tx: Db) => {
          await executePrepared(tx, { text: DROP, values: [resourceId, holder] });
        },
        end: async (stored: boolean) => {
          if (ended) return;
          ended = true;
          try {
            if (!stored) await executePrepared(this.db, { text: DROP, values: [resourceId, holder] });
          } finally {
            leave();
          }
        },
      };
    } catch (error) {
      leave();
      throw error;
    }
  }
}
