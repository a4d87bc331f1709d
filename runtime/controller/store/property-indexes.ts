/**
 * Indexes for lists filtered by a declared property. Every resource lives in one table with its
 * properties in a jsonb `body`; the GIN index on `body` answers containment, but PostgreSQL keeps
 * no statistics inside jsonb, so it guesses that `eq(size,500)` matches 1% of a type's rows and
 * walks the whole type in `seq` order for a `limit(0,10)`: 60 ms over 100,000 rows, growing with
 * the table. An expression index per declared scalar property, partial on its type,
 *
 *     create index ... on resources ((body -> 'size'), seq) where type_id = '<type id>'
 *
 * gives the planner both the rows (in page order: `eq` then `order by seq` is one index range)
 * and the statistics of the values (ANALYZE samples index expressions), so such a page costs
 * what the page holds. rql-sql.ts writes `eq` on a property its one type declares in that form.
 *
 * Which properties: those lists ask for. Indexing every declared property would cost every
 * write of a type one index entry per property, and every statement PostgreSQL plans on the
 * table a look at every partial index (179 of them for the core and example types alone); the
 * properties real lists filter on are a few per type. So the first list that compares a
 * declared string, integer, number or boolean property of one type with `eq` asks for its
 * index, and a background pass makes it (`CONCURRENTLY` on PostgreSQL, so that writes go on
 * meanwhile); until then the list is answered without it, only slower. An index once made
 * stays (a restart finds it in the catalog). The write cost per index is in docs/performance.md.
 *
 * The names are a hash of type and property, so every controller process of one database asks
 * for the same ones; a process that finds one made (or being made) by another leaves it.
 */
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Logger } from "pino";
import { isDatabaseUnavailable } from "./database-unavailable.ts";
import type { Db } from "./open-database.ts";
import { rowsOf } from "./open-database.ts";
import type { RegistryType } from "../registry.ts";

/** One index: rows of `typeId` by the value of `property`, then `seq`. */
export interface PropertyIndex {
  readonly name: string;
  readonly typeId: string;
  readonly property: string;
}

/** Kinds whose values the index holds and `eq` compares as one jsonb value. */
const INDEXED_KINDS = new Set(["string", "integer", "number", "boolean"]);

/** Every index prefix; what `pg_indexes` is asked about. */
const PREFIX = "resources_prop_";

/** The property's kind when `eq` on it is written for the index (an indexed kind, not encrypted); else undefined. */
export function indexedKind(type: RegistryType | undefined, property: string): string | undefined {
  const p = type?.properties[property];
  return p && !p.encrypted && INDEXED_KINDS.has(p.kind) ? p.kind : undefined;
}

/** Indexes by type and property, named once: a list asks for them on every request. */
const named = new Map<string, PropertyIndex>();

/** The index `eq` on `property` of `typeId` uses. */
export function propertyIndex(typeId: string, property: string): PropertyIndex {
  const key = `${typeId}\n${property}`;
  let ix = named.get(key);
  if (!ix)
    named.set(
      key,
      (ix = { name: PREFIX + createHash("sha256").update(key).digest("hex").slice(0, 24), typeId, property }),
    );
  return ix;
}

/** A string as an SQL literal (standard_conforming_strings, PostgreSQL's default since 9.1). */
export function sqlLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** Makes the property indexes lists ask for, in a background pass. */
export class PropertyIndexer {
  /** Indexes known to exist (valid); undefined until the first pass read the catalog. */
  private made?: Set<string>;
  private readonly wanted = new Map<string, PropertyIndex>();
  private readonly failed = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly kind: "pglite" | "postgres",
    private readonly logger: Logger,
    /** Wakes the pass that makes them (the background loop's nudge). */
    private readonly nudge: () => void = () => {},
  ) {}

  /** A list compared `property` of `typeId` with `eq`: its index is made unless it exists. Cheap: a set lookup. */
  want(typeId: string, property: string): void {
    const ix = propertyIndex(typeId, property);
    if (this.made?.has(ix.name) || this.wanted.has(ix.name) || this.failed.has(ix.name)) return;
    this.wanted.set(ix.name, ix);
    this.nudge();
  }

  /** One pass: true when it made an index. */
  async pass(): Promise<boolean> {
    if (!this.made) {
      const rows = rowsOf<{ name: string }>(
        await this.db.execute(
          sql`select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname like ${`${PREFIX}%`} and i.indisvalid`,
        ),
      );
      this.made = new Set(rows.map((r) => r.name));
    }
    const next = [...this.wanted.values()].find((ix) => !this.made!.has(ix.name));
    if (!next) {
      this.wanted.clear();
      return false;
    }
    this.wanted.delete(next.name);
    const started = performance.now();
    if (await this.make(next)) {
      this.made.add(next.name);
      this.logger.info(
        { index: next.name, type: next.typeId, property: next.property, ms: Math.round(performance.now() - started) },
        `indexed ${next.property} of ${next.typeId} for lists`,
      );
    } else this.failed.add(next.name);
    return true;
  }

  /** Makes one index; false when it could not be made (said in a warning; asked for again after a restart). */
  private async make(ix: PropertyIndex): Promise<boolean> {
    const concurrently = this.kind === "postgres" ? "concurrently " : "";
    try {
      // A CONCURRENTLY build that failed (or whose process was killed) leaves an invalid index that `if not exists` would keep.
      const [state] = rowsOf<{ valid: boolean }>(
        await this.db.execute(
          sql`select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = ${ix.name}`,
        ),
      );
      if (state?.valid) return true;
      if (state) await this.db.execute(sql.raw(`drop index ${concurrently}if exists "${ix.name}"`));
      await this.db.execute(
        sql.raw(
          `create index ${concurrently}if not exists "${ix.name}" on resources ((body -> ${sqlLiteral(ix.property)}), seq) where type_id = ${sqlLiteral(ix.typeId)}`,
        ),
      );
      return true;
    } catch (error) {
      if (isDatabaseUnavailable(error)) {
        // Not this index's fault: wanted again, made once the database is back.
        this.wanted.set(ix.name, ix);
        throw error;
      }
      this.logger.warn(
        { err: error, index: ix.name, type: ix.typeId, property: ix.property },
        "a property index for lists was not made",
      );
      return false;
    }
  }
}
