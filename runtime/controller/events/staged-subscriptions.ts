/**
 * Subscriptions made during the provisioning of their subscriber (schema.ts
 * `staged_subscriptions`): written by whichever process the application's call reached, moved
 * into `subscriptions` by the process that stores the subscriber, in the same statement.
 */
import { and, asc, eq, lt } from "drizzle-orm";
import { executePrepared, type Db } from "../store/open-database.ts";
import { stagedSubscriptions, type subscriptions } from "../store/schema.ts";

type SubscriptionRow = typeof subscriptions.$inferSelect;

const COLUMNS = "id, subscriber_id, event, source_type, source_id, relation, handler, created";

/** Staged rows older than this belong to a provisioning that will never finish. */
const ABANDONED_MS = 60 * 60_000;

/**
 * The CTEs that move the staged subscriptions of the resource `$<subscriber>` (a uuid
 * parameter) into `subscriptions`; to append to a `with` list. Only the provisioning of that new
 * resource can have staged any (its transaction id names it), so the id is the whole key.
 */
export function moveStagedCtes(subscriber: number): string {
  return `staged as (delete from staged_subscriptions where subscriber_id = $${subscriber}::uuid returning ${COLUMNS}),
      moved as (insert into subscriptions (${COLUMNS}) select ${COLUMNS} from staged)`;
}

/** Moves them in a statement of its own (inside the transaction that stores the subscriber). */
export async function moveStaged(db: Db, subscriberId: string): Promise<void> {
  await executePrepared(db, { text: `with ${moveStagedCtes(1)} select 1`, values: [subscriberId] });
}

/** The staging of one subscriber being provisioned. */
export class StagedSubscriptions {
  constructor(
    private readonly db: Db,
    private readonly subscriberId: string,
  ) {}

  async list(): Promise<SubscriptionRow[]> {
    const rows = await this.db
      .select()
      .from(stagedSubscriptions)
      .where(this.mine())
      .orderBy(asc(stagedSubscriptions.created), asc(stagedSubscriptions.id));
    return rows;
  }

  async add(row: SubscriptionRow): Promise<void> {
    // Rows of provisionings that died with their process go here, where staging is rare anyway.
    await this.db
      .delete(stagedSubscriptions)
      .where(lt(stagedSubscriptions.created, new Date(Date.now() - ABANDONED_MS).toISOString()));
    await this.db.insert(stagedSubscriptions).values(row);
  }

  async remove(id: string): Promise<boolean> {
    const gone = await this.db
      .delete(stagedSubscriptions)
      .where(and(this.mine(), eq(stagedSubscriptions.id, id)))
      .returning({ id: stagedSubscriptions.id });
    return gone.length > 0;
  }

  private mine() {
    return eq(stagedSubscriptions.subscriberId, this.subscriberId);
  }
}

/** Drops what a failed provisioning staged for its resource. */
export async function dropStaged(db: Db, subscriberId: string): Promise<void> {
  await db.delete(stagedSubscriptions).where(eq(stagedSubscriptions.subscriberId, subscriberId));
}
