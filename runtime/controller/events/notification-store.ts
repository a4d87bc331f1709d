/**
 * The outbox table as the deliverer and admins use it: serials in commit order, claiming the
 * next notification of each subscriber, and the outcome of a delivery (see schema.ts
 * `notifications` and `event_clock`).
 */
import { sql } from "drizzle-orm";
import type { OutboxNotification } from "../../common/outbox-notification.ts";
import { rowsOf, type Db } from "../store/open-database.ts";

/** A notification claimed for delivery, with what the delivery needs of its subscriber. */
export interface ClaimedNotification {
  readonly id: number;
  readonly serial: number;
  readonly subscriptionId: string;
  readonly subscriberId: string;
  readonly subscriberType: string;
  readonly instanceId: string | null;
  readonly handler: string;
  readonly event: string;
  readonly time: string;
  readonly sourceId: string;
  readonly sourceType: string;
  readonly relation: string | null;
  readonly targetId: string | null;
  readonly attempts: number;
}

/** How long a claimed notification is reserved for the process delivering it. */
const LEASE_SECONDS = 60;

export class NotificationStore {
  constructor(private readonly db: Db) {}

  /**
   * Gives serials to the committed notifications that have none, in insertion order, one serial
   * per event. The clock row is locked (SKIP LOCKED: when another process sequences, this one
   * lets it), so serials grow strictly across processes; a notification committed later is
   * sequenced later and gets a larger serial. Returns how many rows got one.
   */
  async sequence(): Promise<number> {
    return this.db.transaction(async (tx) => {
      const clock = rowsOf<{ last_serial: string | number }>(
        await tx.execute(sql`select last_serial from event_clock where id = 1 for update skip locked`),
      );
      if (clock.length === 0) return 0;
      const last = Number(clock[0]!.last_serial);
      const given = rowsOf<{ serial: string | number }>(
        await tx.execute(sql`
          with pending as (select event_key, min(id) as first from notifications where serial is null group by event_key),
          numbered as (select event_key, ${last}::bigint + row_number() over (order by first) as serial from pending)
          update notifications n set serial = numbered.serial from numbered where n.event_key = numbered.event_key
          returning n.serial`),
      );
      if (given.length === 0) return 0;
      const top = given.reduce((m, r) => Math.max(m, Number(r.serial)), last);
      await tx.execute(sql`update event_clock set last_serial = ${top} where id = 1`);
      return given.length;
    });
  }

  /**
   * Claims up to `limit` due notifications, at most one per subscriber and only the oldest it
   * has pending (an earlier one waiting for a retry holds the later ones back: order per
   * subscriber). Locked with SKIP LOCKED and leased, like tasks.
   */
  async claim(limit: number): Promise<ClaimedNotification[]> {
    const rows = rowsOf<Record<string, unknown>>(
      await this.db.execute(sql`
        update notifications n set locked_until = now() + make_interval(secs => ${LEASE_SECONDS})
        from resources r, subscriptions s
        where n.id in (
          select c.id from notifications c
          where c.state = 'pending' and c.serial is not null and c.next_at <= now() and (c.locked_until is null or c.locked_until < now())
            and not exists (select 1 from notifications p where p.subscriber_id = c.subscriber_id and p.state = 'pending' and p.serial < c.serial)
          order by c.serial limit ${limit} for update of c skip locked)
          and r.id = n.subscriber_id and s.id = n.subscription_id
        returning n.id, n.serial, n.subscription_id, n.subscriber_id, r.type_id, r.instance_id, s.handler, n.event, n.time, n.source_id, n.source_type, n.relation, n.target_id, n.attempts`),
    );
    return rows
      .map((r) => ({
        id: Number(r.id),
        serial: Number(r.serial),
        subscriptionId: String(r.subscription_id),
        subscriberId: String(r.subscriber_id),
        subscriberType: String(r.type_id),
        instanceId: (r.instance_id as string | null) ?? null,
        handler: String(r.handler),
        event: String(r.event),
        time: new Date(String(r.time)).toISOString(),
        sourceId: String(r.source_id),
        sourceType: String(r.source_type),
        relation: (r.relation as string | null) ?? null,
        targetId: (r.target_id as string | null) ?? null,
        attempts: Number(r.attempts),
      }))
      .sort((a, b) => a.serial - b.serial);
  }

  /** Delivered: the row goes. */
  async delivered(id: number): Promise<void> {
    await this.db.execute(sql`delete from notifications where id = ${id}`);
  }

  /** The subscriber answered 202: try again later, without counting it as a failure. */
  async later(id: number, seconds: number): Promise<void> {
    await this.db.execute(
      sql`update notifications set next_at = now() + make_interval(secs => ${seconds}), locked_until = null where id = ${id}`,
    );
  }

  /** A failed delivery: retried after `retrySeconds`, or given up (dead) when `dead`. */
  async failed(id: number, error: string, retrySeconds: number, dead: boolean): Promise<void> {
    await this.db.execute(sql`
      update notifications set attempts = attempts + 1, last_error = ${error.slice(0, 2000)}, locked_until = null,
        state = ${dead ? "dead" : "pending"}, next_at = now() + make_interval(secs => ${retrySeconds})
      where id = ${id}`);
  }

  /**
   * Notifications in a state (`dead`: the dead-letter list; `pending`: not yet delivered), oldest
   * first, at most `limit` of them, and how many there are in that state.
   */
  async list(
    state: "dead" | "pending",
    limit: number,
  ): Promise<{ readonly items: OutboxNotification[]; readonly total: number }> {
    const [listed, counted] = await Promise.all([
      this.db.execute(sql`
        select id, serial, subscription_id, subscriber_id, event, time, source_id, source_type, state, attempts, next_at, last_error
        from notifications where state = ${state} order by serial nulls last, id limit ${limit}`),
      this.db.execute(sql`select count(*) as n from notifications where state = ${state}`),
    ]);
    const rows = rowsOf<Record<string, unknown>>(listed);
    const total = Number(rowsOf<{ n: unknown }>(counted)[0]?.n ?? 0);
    const items = rows.map((r) => ({
      id: Number(r.id),
      serial: r.serial === null ? null : Number(r.serial),
      subscription: String(r.subscription_id),
      subscriber: String(r.subscriber_id),
      event: String(r.event),
      time: new Date(String(r.time)).toISOString(),
      source: { id: String(r.source_id), type: String(r.source_type) },
      state: String(r.state),
      attempts: Number(r.attempts),
      nextAt: new Date(String(r.next_at)).toISOString(),
      lastError: (r.last_error as string | null) ?? null,
    }));
    return { items, total: Math.max(items.length, total) };
  }

  /** Puts dead notifications (one, or all when `id` is absent) back in the queue; returns how many. */
  async replay(id?: number): Promise<number> {
    const rows = rowsOf(
      await this.db.execute(sql`
        update notifications set state = 'pending', attempts = 0, next_at = now(), locked_until = null
        where state = 'dead'${id === undefined ? sql`` : sql` and id = ${id}`} returning id`),
    );
    return rows.length;
  }

  /** Removes one dead notification for good. */
  async discard(id: number): Promise<boolean> {
    return (
      rowsOf(await this.db.execute(sql`delete from notifications where id = ${id} and state = 'dead' returning id`))
        .length > 0
    );
  }
}
