/**
 * Reads and writes resources and links. The calls every request makes (one resource by id, its
 * links, the referrer test) are prepared statements, planned once per connection.
 */
import { and, eq, sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { parseJsonText, stringifyJson } from "../../common/json-text.ts";
import { executePrepared, rowsOf, runsPrepared, type Db } from "./open-database.ts";
import { notificationStatement, pgArray, recordEvents, type RaisedEvent } from "../events/outbox.ts";
import { dropStaged, moveStaged, moveStagedCtes } from "../events/staged-subscriptions.ts";
import { links, resources } from "./schema.ts";
import { linkedWithAccount, reachedByInstance } from "./role-sql.ts";
import type { StoredResource } from "./schema-rows.ts";

/** Matches of a list counted exactly for `Content-Range`; past it, the total is PostgreSQL's estimate (ResourceStore.total). */
export const EXACT_COUNT_LIMIT = 10_000;

/** The row estimate of the top node of an `explain (format json)` result (text or parsed, by driver). */
function planRows(value: unknown): number {
  const doc = (typeof value === "string" ? JSON.parse(value) : value) as
    | { Plan?: { "Plan Rows"?: number } }[]
    | undefined;
  return Number(doc?.[0]?.Plan?.["Plan Rows"]);
}

/** A resource row as stored. */
export type { StoredResource };
/** What a new resource row holds. */
export type NewResource = typeof resources.$inferInsert;
/** A link from the resource at hand. */
export interface StoredLink {
  readonly relation: string;
  readonly targetId: string;
  /** The relation is singular (at most one link; the database enforces it). Only read when a link is written. */
  readonly singular?: boolean;
}

/** What a link change did: the links it replaced (a singular relation relinked) and whether the link is new. */
export interface LinkChange {
  readonly replaced: readonly string[];
  readonly added: boolean;
}

/** Removes the provisioning intent of the resource `$1` (intents/intent-store.ts), in the statement that stores it. */
const DROP_INTENT_CTE = "dropped_intent as (delete from provisioning_intents where resource_id = $1::uuid)";

/** A resource and its outgoing links as `[relation, target]` pairs in JSON text (what `getWithLinks` reads). */
const RESOURCE_COLUMNS =
  "id, type_id, status, revision, created, modified, owner_account, owner_path, subscription, package_id, instance_id, body, secrets, seq";
const BY_ID = `select ${RESOURCE_COLUMNS} from resources where id = $1::uuid`;
/** FOR NO KEY UPDATE: links to the row may still be written while it is held. */
const BY_ID_LOCKED = `${BY_ID} for no key update`;
/** Optimistic concurrency: written only while the stored revision is still $2. */
const UPDATE_AT_REVISION = `update resources set body = $3::jsonb, secrets = $4::bytea, modified = $5::timestamptz, revision = $2 + 1, status = coalesce($6, status)
  where id = $1::uuid and revision = $2 returning ${RESOURCE_COLUMNS}`;
const BY_ID_WITH_LINKS = `select r.id, r.type_id, r.status, r.revision, r.created, r.modified, r.owner_account, r.owner_path, r.subscription, r.package_id, r.instance_id, r.body, r.secrets, r.seq,
  (select coalesce(json_agg(json_build_array(l.relation, l.target_id)), '[]'::json)::text from links l where l.source_id = r.id) as links
  from resources r where r.id = $1::uuid`;

/** A resources row as postgres.js returns it (timestamps as text: drizzle's driver sets those parsers; jsonb as text: open-database.ts). */
interface RawResourceRow {
  id: string;
  type_id: string;
  status: string;
  revision: number;
  created: string;
  modified: string;
  owner_account: string | null;
  owner_path: string;
  subscription: string | null;
  package_id: string | null;
  instance_id: string | null;
  body: string;
  secrets: Uint8Array | null;
  seq: string | number | null;
}

const dialect = new PgDialect();

/** Distinct list statements (filter shapes) a process prepares; others run unprepared. */
const MAX_PREPARED_LISTS = 500;

/** Drizzle SQL as the text and values executePrepared takes. */
function statementOf(query: SQL): { text: string; values: unknown[] } {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return { text, values: params };
}

/** The row as drizzle maps it (schema.ts). */
function storedResource(r: RawResourceRow): StoredResource {
  return {
    id: r.id,
    typeId: r.type_id,
    status: r.status,
    revision: r.revision,
    created: r.created,
    modified: r.modified,
    ownerAccount: r.owner_account,
    ownerPath: r.owner_path,
    subscription: r.subscription,
    packageId: r.package_id,
    instanceId: r.instance_id,
    body: parseJsonText(r.body) as Record<string, unknown>,
    secrets: r.secrets,
    seq: r.seq === null ? (null as unknown as number) : Number(r.seq),
  };
}

/** Rolls back the events of a delete that found nothing. */
const NOTHING_DELETED = new Error("nothing deleted");

/** The resource store over one database. */
export class ResourceStore {
  private readonly byId;
  private readonly byIdWithLinks;
  private readonly linksFromId;
  private readonly linksToId;
  private readonly referrer;
  private readonly applicationReferrer;

  /** postgres.js: hot reads are prepared statements read here (open-database.ts `executePrepared`). */
  private readonly prepared: boolean;
  /**
   * The list statements prepared so far. Each connection keeps what it prepared until it is
   * recycled, and filters can be written in endless shapes: past {@link MAX_PREPARED_LISTS}
   * shapes, others run unprepared, so no caller can fill the server's memory with statements.
   */
  private readonly preparedLists = new Set<string>();

  constructor(private readonly db: Db) {
    this.prepared = runsPrepared(db);
    this.byId = db
      .select()
      .from(resources)
      .where(eq(resources.id, sql.placeholder("id")))
      .prepare("resource_by_id");
    // One round trip for what a GET needs: the row and its outgoing links.
    this.byIdWithLinks = db
      .select({
        row: resources,
        links: sql<string>`(select coalesce(json_agg(json_build_array(l.relation, l.target_id)), '[]'::json)::text from links l where l.source_id = ${resources.id})`,
      })
      .from(resources)
      .where(eq(resources.id, sql.placeholder("id")))
      .prepare("resource_with_links");
    this.linksFromId = db
      .select({ relation: links.relation, targetId: links.targetId })
      .from(links)
      .where(eq(links.sourceId, sql.placeholder("id")))
      .prepare("links_from");
    this.linksToId = db
      .select({ sourceId: links.sourceId, relation: links.relation, sourceType: resources.typeId })
      .from(links)
      .innerJoin(resources, eq(resources.id, links.sourceId))
      .where(eq(links.targetId, sql.placeholder("id")))
      .prepare("links_to");
    this.referrer = db
      .select({ one: sql<number>`1` })
      .from(resources)
      .where(and(eq(resources.id, sql.placeholder("id")), linkedWithAccount(sql.placeholder("account"))))
      .prepare("is_referrer");
    this.applicationReferrer = db
      .select({ one: sql<number>`1` })
      .from(resources)
      .where(and(eq(resources.id, sql.placeholder("id")), reachedByInstance(sql.placeholder("instance"))))
      .prepare("is_application_referrer");
  }

  async get(id: string): Promise<StoredResource | undefined> {
    if (this.prepared) return this.readRaw(this.db, BY_ID, [id]);
    const rows = await this.byId.execute({ id });
    return rows[0];
  }

  /** One resources row of a prepared statement, mapped as drizzle maps it, without drizzle's per-column entity checks. */
  private async readRaw(db: Db, text: string, values: readonly unknown[]): Promise<StoredResource | undefined> {
    const raw = rowsOf<RawResourceRow>(await executePrepared(db, { text, values }))[0];
    return raw && storedResource(raw);
  }

  /**
   * A resource and its outgoing links, in one query. On postgres.js the statement is prepared and
   * its row read here: drizzle's mapping of a prepared select (its entity checks per column) was
   * the largest single cost of a GET's JavaScript (docs/performance.md).
   */
  async getWithLinks(id: string): Promise<{ row: StoredResource; links: StoredLink[] } | undefined> {
    let found: { row: StoredResource; links: string } | undefined;
    if (this.prepared) {
      const raw = rowsOf<RawResourceRow & { links: string }>(
        await executePrepared(this.db, { text: BY_ID_WITH_LINKS, values: [id] }),
      )[0];
      found = raw && { row: storedResource(raw), links: raw.links };
    } else [found] = await this.byIdWithLinks.execute({ id });
    if (!found) return undefined;
    const pairs = JSON.parse(found.links) as [string, string][];
    return { row: found.row, links: pairs.map(([relation, targetId]) => ({ relation, targetId })) };
  }

  /** The row, locked against other writers of it until `tx` ends (FOR NO KEY UPDATE: links to it may still be written). */
  async getLocked(id: string, tx: Db): Promise<StoredResource | undefined> {
    if (this.prepared) return this.readRaw(tx, BY_ID_LOCKED, [id]);
    const [row] = await tx.select().from(resources).where(eq(resources.id, id)).for("no key update");
    return row;
  }

  async linksFrom(id: string): Promise<StoredLink[]> {
    return this.linksFromId.execute({ id });
  }

  /** The rows of `ids` that exist, by id (one query). */
  async rowsById(ids: readonly string[]): Promise<Map<string, StoredResource>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .select()
      .from(resources)
      .where(sql`${resources.id} = any(${pgArray([...new Set(ids)])}::uuid[])`);
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** Links pointing at a resource, with the source's type (to tell strong links from weak). */
  async linksTo(id: string): Promise<{ sourceId: string; relation: string; sourceType: string }[]> {
    return this.linksToId.execute({ id });
  }

  /** Referrer (docs/aps/security.md, "Roles"): the account owns a resource linked with `id`, either way (store/role-sql.ts `linkedWithAccount`). */
  async isReferrer(id: string, accountId: string): Promise<boolean> {
    return (await this.referrer.execute({ id, account: accountId })).length > 0;
  }

  /** An application instance reaches `id` as a referrer (store/role-sql.ts `reachedByInstance`). */
  async isApplicationReferrer(id: string, instanceId: string): Promise<boolean> {
    return (await this.applicationReferrer.execute({ id, instance: instanceId })).length > 0;
  }

  /**
   * Inserts a resource with its links and the notifications of `events`, and returns the stored
   * row. Without `alsoDo` that is one statement (data-modifying CTEs: one round trip, atomic as
   * any statement); `alsoDo` (scheduling a task) makes it a transaction, with the events recorded
   * after it so that they see what it wrote. With `staged`, subscriptions staged for the resource
   * are moved in too; the events of this change are not sent to them (they take effect once it
   * is stored).
   */
  async insert(
    row: NewResource,
    newLinks: readonly StoredLink[],
    extra: {
      alsoDo?: (tx: Db) => Promise<unknown>;
      events?: readonly RaisedEvent[];
      staged?: boolean;
      intent?: boolean;
    } = {},
  ): Promise<StoredResource> {
    const events = extra.events ?? [];
    if (extra.alsoDo) {
      const alsoDo = extra.alsoDo;
      return this.db.transaction(async (tx) => {
        const [stored] = await tx.insert(resources).values(row).returning();
        if (newLinks.length)
          await tx.insert(links).values(
            newLinks.map((l) => ({
              sourceId: row.id,
              relation: l.relation,
              targetId: l.targetId,
              singular: l.singular ?? false,
            })),
          );
        if (extra.intent)
          await executePrepared(tx as unknown as Db, { text: `with ${DROP_INTENT_CTE} select 1`, values: [row.id] });
        await alsoDo(tx as unknown as Db);
        await recordEvents(tx as unknown as Db, events);
        // After the events, as in the one statement below: the change that stores the subscriber is not told to its new subscriptions.
        if (extra.staged) await moveStaged(tx as unknown as Db, row.id);
        return stored!;
      });
    }
    // Links and events travel as arrays: one statement text (planned once), whatever their number.
    const values: unknown[] = [
      row.id,
      row.typeId,
      row.status,
      row.revision,
      row.created,
      row.modified,
      row.ownerAccount ?? null,
      row.ownerPath,
      row.subscription ?? null,
      row.packageId ?? null,
      row.instanceId ?? null,
      stringifyJson(row.body),
      row.secrets ?? null,
    ];
    let text = `with r as (
        insert into resources (id, type_id, status, revision, created, modified, owner_account, owner_path, subscription, package_id, instance_id, body, secrets)
        values ($1::uuid, $2, $3, $4, $5::timestamptz, $6::timestamptz, $7::uuid, $8, $9::uuid, $10::uuid, $11::uuid, $12::jsonb, $13::bytea)
        returning seq)`;
    let linkTargets: number | undefined;
    if (newLinks.length) {
      text += `, l as (insert into links (source_id, relation, target_id, singular) select $1::uuid, x.relation, x.target, x.singular from unnest($${values.length + 1}::text[], $${values.length + 2}::uuid[], $${values.length + 3}::boolean[]) as x(relation, target, singular))`;
      values.push(
        pgArray(newLinks.map((l) => l.relation)),
        pgArray(newLinks.map((l) => l.targetId)),
        pgArray(newLinks.map((l) => String(l.singular ?? false))),
      );
      linkTargets = values.length - 1;
    }
    // The provisioning is stored: the intent written before the application's call goes in the same statement.
    if (extra.intent) text += `, ${DROP_INTENT_CTE}`;
    // Subscriptions the application made while it created the resource (any process took them).
    if (extra.staged) text += `, ${moveStagedCtes(1)}`;
    // One notification CTE per source: the new resource's own events, and those of the other
    // ends of its links (events/link-events.ts).
    const groups = new Map<string, RaisedEvent[]>();
    for (const e of events) groups.set(e.sourceId, [...(groups.get(e.sourceId) ?? []), e]);
    let n = 0;
    for (const group of groups.values()) {
      // The notifications of the row's own events reuse the row's parameters ($1 id, $2 type,
      // $5 created, $7 owner account, $8 owner path) and the link targets: fewer bytes per provisioning.
      const targets = new Set(newLinks.map((l) => l.targetId));
      const ownSource = group.every(
        (e) =>
          e.sourceId === row.id &&
          e.sourceTypes[0] === row.typeId &&
          e.ownerPath === row.ownerPath &&
          e.ownerAccount === (row.ownerAccount ?? null),
      );
      const linkedCovered =
        linkTargets !== undefined && group.every((e) => (e.linkedIds ?? []).every((id) => targets.has(id)));
      const shared = ownSource
        ? {
            time: 5,
            sourceId: 1,
            sourceType: 2,
            ownerPath: 8,
            ownerAccount: 7,
            ...(linkedCovered ? { linked: linkTargets } : {}),
          }
        : { time: 5 };
      const notify = notificationStatement(group, values.length + 1, row.created, shared);
      text += `, n${n++} as (${notify.text})`;
      values.push(...notify.values);
    }
    const result = await executePrepared(this.db, { text: `${text} select seq from r`, values });
    const seq = Number(rowsOf<{ seq: number | string }>(result)[0]!.seq);
    return {
      ...row,
      ownerAccount: row.ownerAccount ?? null,
      subscription: row.subscription ?? null,
      packageId: row.packageId ?? null,
      instanceId: row.instanceId ?? null,
      secrets: row.secrets ?? null,
      seq,
    } as StoredResource;
  }

  /** Removes what was staged for a resource whose provisioning failed. */
  async dropStaged(id: string): Promise<void> {
    await dropStaged(this.db, id);
  }

  /**
   * Sets the links of `relation` from `source`: adds `target`, replacing what was there for a
   * singular relation, and records the events `eventsOf` makes of what changed. Link changes of
   * one source run one at a time (an advisory lock), so what was replaced is exact; a singular
   * relation is replaced by one upsert on `links_singular_idx`, so it never has two links
   * whatever runs alongside. Undefined when the source is gone; a target that is gone or being
   * unprovisioned is refused by the database (see link-target-error.ts).
   */
  async link(
    source: string,
    relation: string,
    target: string,
    singular: boolean,
    eventsOf: (change: LinkChange) => readonly RaisedEvent[] = () => [],
  ): Promise<LinkChange | undefined> {
    return this.db.transaction(async (t) => {
      const tx = t as unknown as Db;
      // An advisory lock, not a row lock on the source: that would deadlock with the trigger's
      // FOR SHARE on the target when two resources are linked to each other at the same time.
      await executePrepared(tx, { text: "select pg_advisory_xact_lock(hashtextextended($1, 7))", values: [source] });
      const current = rowsOf<{ target_id: string | null; singular: boolean | null }>(
        await executePrepared(tx, {
          text: "select l.target_id, l.singular from resources r left join links l on l.source_id = r.id and l.relation = $2 where r.id = $1::uuid",
          values: [source, relation],
        }),
      );
      if (current.length === 0) return undefined;
      const existing = current.filter((c) => c.target_id !== null);
      let change: LinkChange;
      if (singular) {
        // Links written before links carried `singular` are not covered by the index: they go first.
        if (existing.some((c) => !c.singular))
          await executePrepared(tx, {
            text: "delete from links where source_id = $1::uuid and relation = $2 and not singular",
            values: [source, relation],
          });
        await executePrepared(tx, {
          text: "insert into links (source_id, relation, target_id, singular) values ($1::uuid, $2, $3::uuid, true) on conflict (source_id, relation) where singular do update set target_id = excluded.target_id",
          values: [source, relation, target],
        });
        change = {
          replaced: existing.map((c) => c.target_id!).filter((id) => id !== target),
          added: !existing.some((c) => c.target_id === target),
        };
      } else {
        const inserted = await tx
          .insert(links)
          .values({ sourceId: source, relation, targetId: target })
          .onConflictDoNothing()
          .returning({ target: links.targetId });
        change = { replaced: [], added: inserted.length > 0 };
      }
      await recordEvents(tx, eventsOf(change));
      return change;
    });
  }

  /**
   * First step of an unprovisioning: marks the resource `aps:unprovisioning` (links to it are
   * refused from then on, see migration 0007), then `refuse` looks at the links to it, which now
   * include every link written before (the status change waited for them), and throws to keep
   * the resource as it was. Returns the status it had, or undefined when it is gone. Commits
   * unless `tx` is given: the mark must be seen by others before the application is called.
   */
  async beginUnprovisioning(
    id: string,
    refuse: (linksTo: { sourceId: string; relation: string; sourceType: string }[]) => void,
    tx?: Db,
  ): Promise<string | undefined> {
    if (!tx) return this.transaction((t) => this.beginUnprovisioning(id, refuse, t));
    const marked = rowsOf<{ status: string }>(
      await executePrepared(tx, {
        text: "update resources r set status = 'aps:unprovisioning' from (select id, status from resources where id = $1::uuid for no key update) old where r.id = old.id returning old.status",
        values: [id],
      }),
    );
    if (marked.length === 0) return undefined;
    refuse(
      await tx
        .select({ sourceId: links.sourceId, relation: links.relation, sourceType: resources.typeId })
        .from(links)
        .innerJoin(resources, eq(resources.id, links.sourceId))
        .where(eq(links.targetId, id)),
    );
    return marked[0]!.status;
  }

  /** Undoes {@link beginUnprovisioning} when the application refused: the resource gets `status` back. */
  async endUnprovisioning(id: string, status: string): Promise<void> {
    await executePrepared(this.db, {
      text: "update resources set status = $2 where id = $1::uuid and status = 'aps:unprovisioning'",
      values: [id, status],
    });
  }

  /** Removes one link (and records `events` with it); true when it existed. */
  async unlink(
    source: string,
    relation: string,
    target: string,
    events: readonly RaisedEvent[] = [],
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const rows = await tx
        .delete(links)
        .where(and(eq(links.sourceId, source), eq(links.relation, relation), eq(links.targetId, target)))
        .returning({ source: links.sourceId });
      if (rows.length) await recordEvents(tx as unknown as Db, events);
      return rows.length > 0;
    });
  }

  /** Runs statements in one transaction. */
  async transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => work(tx as unknown as Db));
  }

  /**
   * Writes new properties when the stored revision is still `revision` (optimistic concurrency);
   * returns the updated row, or undefined when someone else changed it first.
   */
  async update(
    id: string,
    revision: number,
    changes: { body: Record<string, unknown>; secrets: Uint8Array | null; modified: string; status?: string },
    tx?: Db,
    events: readonly RaisedEvent[] = [],
  ): Promise<StoredResource | undefined> {
    if (!tx && events.length) return this.transaction((t) => this.update(id, revision, changes, t, events));
    if (this.prepared) {
      const db = tx ?? this.db;
      const row = await this.readRaw(db, UPDATE_AT_REVISION, [
        id,
        revision,
        stringifyJson(changes.body),
        changes.secrets,
        changes.modified,
        changes.status || null,
      ]);
      if (row) await recordEvents(db, events);
      return row;
    }
    const rows = await (tx ?? this.db)
      .update(resources)
      .set({
        body: changes.body,
        secrets: changes.secrets,
        modified: changes.modified,
        revision: revision + 1,
        ...(changes.status ? { status: changes.status } : {}),
      })
      .where(and(eq(resources.id, id), eq(resources.revision, revision)))
      .returning();
    if (rows[0]) await recordEvents(tx ?? this.db, events);
    return rows[0];
  }

  /** Deletes a resource, recording `events` (its `removed`) first, while its links still tell who may see it. */
  async delete(id: string, tx?: Db, events: readonly RaisedEvent[] = []): Promise<boolean> {
    if (!tx && events.length)
      return this.transaction((t) => this.delete(id, t, events)).catch((e: unknown) =>
        e === NOTHING_DELETED ? false : Promise.reject(e),
      );
    const db = tx ?? this.db;
    await recordEvents(db, events);
    const rows = await db.delete(resources).where(eq(resources.id, id)).returning({ id: resources.id });
    // Nothing was there: the events must not stay either.
    if (rows.length === 0 && events.length) throw NOTHING_DELETED;
    return rows.length > 0;
  }

  /**
   * One page of resources matching `where`, in `order`, with the total number of matches (for
   * Content-Range) from the same query.
   */
  async list(
    where: SQL,
    order: readonly SQL[],
    start: number,
    count: number,
  ): Promise<{ rows: StoredResource[]; total: number }> {
    const page = this.db
      .select()
      .from(resources)
      .where(where)
      .orderBy(...order, resources.seq)
      .offset(start)
      .limit(count);
    // On postgres.js as a prepared statement: the same list asked again (the same filter, caller
    // and page, other values) is not planned again, and planning its access conditions cost more
    // than running them (docs/performance.md).
    let rows: StoredResource[];
    const statement = this.prepared ? page.toSQL() : undefined;
    if (statement && this.mayPrepare(statement.sql))
      rows = rowsOf<RawResourceRow>(
        await executePrepared(this.db, { text: statement.sql, values: statement.params }),
      ).map(storedResource);
    else rows = await page;
    // A page that ends before `count` is the last one: the total is known without counting.
    if (rows.length < count && (rows.length > 0 || start === 0)) return { rows, total: start + rows.length };
    return { rows, total: await this.total(where, rows.length ? start + rows.length : 0) };
  }

  /**
   * How many rows match `where` (at least `seen`): exact up to {@link EXACT_COUNT_LIMIT}, counted
   * without reading past it; beyond, PostgreSQL's estimate of the matches (and never less than
   * the limit). So a page costs what it holds plus at most the limit, not the whole table.
   */
  private async total(where: SQL, seen: number): Promise<number> {
    const counting = sql`select count(*) as n from (select 1 from ${resources} where ${where} limit ${EXACT_COUNT_LIMIT + 1}) as matches`;
    const statement = this.prepared ? statementOf(counting) : undefined;
    const [c] = rowsOf<{ n: string }>(
      statement && this.mayPrepare(statement.text)
        ? await executePrepared(this.db, statement)
        : await this.db.execute(counting),
    );
    const exact = Number(c?.n ?? 0);
    if (exact <= EXACT_COUNT_LIMIT) return Math.max(exact, seen);
    const [plan] = rowsOf<{ "QUERY PLAN": unknown }>(
      await this.db.execute(sql`explain (format json) select 1 from ${resources} where ${where}`),
    );
    const estimate = planRows(plan?.["QUERY PLAN"]);
    return Math.max(Number.isFinite(estimate) ? Math.round(estimate) : 0, EXACT_COUNT_LIMIT + 1, seen);
  }

  /** Whether the list statement `text` may run prepared (see {@link preparedLists}). */
  private mayPrepare(text: string): boolean {
    if (this.preparedLists.has(text)) return true;
    if (this.preparedLists.size >= MAX_PREPARED_LISTS) return false;
    this.preparedLists.add(text);
    return true;
  }

  /** Those of `ids` whose rows match `where` (e.g. role-sql.ts `visibleRows`): one query, the ids as one array parameter. */
  async idsMatching(ids: readonly string[], where: SQL): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db
      .select({ id: resources.id })
      .from(resources)
      .where(and(sql`${resources.id} = any(${pgArray([...new Set(ids)])}::uuid[])`, where));
    return new Set(rows.map((r) => r.id));
  }
}
