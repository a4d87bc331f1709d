/**
 * Writes notifications into the outbox (schema.ts `notifications`) in the transaction of the
 * change that raises the events: one row per event and matching subscription whose subscriber
 * may see the source, found by one INSERT ... SELECT (nothing is written when nobody listens).
 * The statement text is the same for any number of events (they travel as arrays), so it is
 * planned once; it can stand alone or be a CTE of the statement that makes the change, which
 * keeps provisioning at one round trip.
 */
import { randomUUID } from "node:crypto";
import { executePrepared, type Db } from "../store/open-database.ts";

/** One event, as the outbox needs it. */
export interface RaisedEvent {
  readonly event: string;
  readonly sourceId: string;
  /** The source's type id, then every type it implements (subscriptions by a base type match). */
  readonly sourceTypes: readonly string[];
  readonly ownerAccount: string | null;
  readonly ownerPath: string;
  readonly relation?: string;
  readonly targetId?: string;
  /** Resources the source is linked to in the same statement (not yet visible to it). */
  readonly linkedIds?: readonly string[];
}

/** A statement as text with `$n` parameters, and their values. */
export interface Statement {
  readonly text: string;
  readonly values: unknown[];
}

/**
 * The INSERT ... SELECT of the notifications of `events`, which share one source, with its
 * parameters numbered from `$<first>`. A subscriber sees the source (aps-facts 5) when its owner
 * is the source's owner or an account above it, when the two are linked either way, or when the
 * source's owner account links to it.
 */
export function notificationStatement(events: readonly RaisedEvent[], first = 1, time = new Date().toISOString()): Statement {
  const source = events[0]!;
  const linked = [...new Set(events.flatMap((e) => e.linkedIds ?? []))];
  const values = [
    time,
    source.sourceId,
    source.sourceTypes[0]!,
    pgArray(events.map(() => randomUUID())),
    pgArray(events.map((e) => e.event)),
    pgArray(events.map((e) => e.relation ?? null)),
    pgArray(events.map((e) => e.targetId ?? null)),
    pgArray(source.sourceTypes),
    source.ownerPath,
    pgArray(linked),
    source.ownerAccount,
  ];
  const $ = (n: number) => `$${first + n - 1}`;
  const text = `insert into notifications (event_key, subscription_id, subscriber_id, event, time, source_id, source_type, relation, target_id, state, attempts, next_at)
    select e.key, s.id, s.subscriber_id, e.event, ${$(1)}::timestamptz, ${$(2)}::uuid, ${$(3)}::text, e.relation, e.target, 'pending', 0, ${$(1)}::timestamptz
    from unnest(${$(4)}::uuid[], ${$(5)}::text[], ${$(6)}::text[], ${$(7)}::uuid[]) as e(key, event, relation, target)
    join subscriptions s on s.event = e.event and (s.source_id = ${$(2)}::uuid or s.source_type = any(${$(8)}::text[])) and (s.relation is null or s.relation = e.relation)
    join resources sub on sub.id = s.subscriber_id
    where starts_with(${$(9)}::text, sub.owner_path) or sub.id = any(${$(10)}::uuid[])
      or exists (select 1 from links l where (l.source_id = sub.id and l.target_id = ${$(2)}::uuid) or (l.source_id = ${$(2)}::uuid and l.target_id = sub.id) or (l.source_id = ${$(11)}::uuid and l.target_id = sub.id))`;
  return { text, values };
}

/** Records events in `db` (a transaction, usually), one statement per source; the deliverer polls. */
export async function recordEvents(db: Db, events: readonly RaisedEvent[]): Promise<void> {
  const bySource = new Map<string, RaisedEvent[]>();
  for (const e of events) bySource.set(e.sourceId, [...(bySource.get(e.sourceId) ?? []), e]);
  for (const group of bySource.values()) await executePrepared(db, notificationStatement(group));
}

/** A PostgreSQL array literal (`{"a",NULL}`), so that lists travel as one parameter. */
export function pgArray(values: readonly (string | null)[]): string {
  return `{${values.map((v) => (v === null ? "NULL" : `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`)).join(",")}}`;
}
