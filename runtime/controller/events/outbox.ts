/**
 * Writes notifications into the outbox (schema.ts `notifications`) in the transaction of the
 * change that raises the events: one row per event and matching subscription whose subscriber
 * may see the source, found by one INSERT ... SELECT (nothing is written when nobody listens).
 * The statement text is the same for any number of events (they travel as arrays), so it is
 * planned once; it can stand alone or be a CTE of the statement that makes the change, which
 * keeps provisioning at one round trip.
 */
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
 * Parameters the enclosing statement already carries, by number: a CTE that writes the source
 * resource passes its own, so the same values do not travel twice (the statement stays small).
 * `linked` may name a uuid[] parameter that holds at least every `linkedIds` of the events.
 */
export interface SharedParameters {
  readonly time?: number;
  readonly sourceId?: number;
  readonly sourceType?: number;
  readonly ownerPath?: number;
  readonly ownerAccount?: number;
  readonly linked?: number;
}

/**
 * The INSERT ... SELECT of the notifications of `events`, which share one source, with its
 * parameters numbered from `$<first>`. A subscriber sees the source (docs/aps/events.md, "Who hears
 * an event") when its owner is the source's owner or an account above it, when the two are linked
 * either way, or when the source's owner account links to it. Each event gets its key in the
 * database: one key per event, shared by the rows of its subscribers, so they get one serial.
 */
export function notificationStatement(
  events: readonly RaisedEvent[],
  first = 1,
  time = new Date().toISOString(),
  shared: SharedParameters = {},
): Statement {
  const source = events[0]!;
  const values: unknown[] = [];
  const param = (sharedNumber: number | undefined, value: () => unknown) => {
    if (sharedNumber !== undefined) return `$${sharedNumber}`;
    values.push(value());
    return `$${first + values.length - 1}`;
  };
  const at = param(shared.time, () => time);
  const sourceId = param(shared.sourceId, () => source.sourceId);
  const sourceType = param(shared.sourceType, () => source.sourceTypes[0]!);
  const event = param(undefined, () => pgArray(events.map((e) => e.event)));
  const relation = param(undefined, () => pgArray(events.map((e) => e.relation ?? null)));
  const target = param(undefined, () => pgArray(events.map((e) => e.targetId ?? null)));
  const types = param(undefined, () => pgArray(source.sourceTypes));
  const ownerPath = param(shared.ownerPath, () => source.ownerPath);
  const linked = param(shared.linked, () => pgArray([...new Set(events.flatMap((e) => e.linkedIds ?? []))]));
  const ownerAccount = param(shared.ownerAccount, () => source.ownerAccount);
  // gen_random_uuid() is volatile, so the subquery is computed once per event, before the join.
  const text = `insert into notifications (event_key, subscription_id, subscriber_id, event, time, source_id, source_type, relation, target_id, state, attempts, next_at)
    select e.key, s.id, s.subscriber_id, e.event, ${at}::timestamptz, ${sourceId}::uuid, ${sourceType}::text, e.relation, e.target, 'pending', 0, ${at}::timestamptz
    from (select gen_random_uuid() as key, u.* from unnest(${event}::text[], ${relation}::text[], ${target}::uuid[]) as u(event, relation, target)) as e
    join subscriptions s on s.event = e.event and (s.source_id = ${sourceId}::uuid or s.source_type = any(${types}::text[])) and (s.relation is null or s.relation = e.relation)
    join resources sub on sub.id = s.subscriber_id
    where starts_with(${ownerPath}::text, sub.owner_path) or sub.id = any(${linked}::uuid[])
      or exists (select 1 from links l where (l.source_id = sub.id and l.target_id = ${sourceId}::uuid) or (l.source_id = ${sourceId}::uuid and l.target_id = sub.id) or (l.source_id = ${ownerAccount}::uuid and l.target_id = sub.id))`;
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
