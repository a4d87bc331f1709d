import { cpSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite, types as pgliteTypes } from "@electric-sql/pglite";
import { is, sql, type SQL } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres, PostgresJsTransaction } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "./postgres-driver.ts";
import { makePrivate } from "../support/private-files.ts";

/** The Drizzle database both drivers give, as the store uses it. */
export type Db = PgDatabase<PgQueryResultHKT>;

/** An open, migrated database. */
export interface Database {
  readonly db: Db;
  /** `pglite` (embedded, under the data directory) or `postgres` (a server, by URL). */
  readonly kind: "pglite" | "postgres";
  close(): Promise<void>;
}

/** Runs a statement text as a prepared statement, where the driver can (see {@link executePrepared}). */
type PreparedRunner = (text: string, values: unknown[]) => Promise<unknown>;
const preparedRunners = new WeakMap<Db, PreparedRunner>();

/**
 * Runs a statement (text with `$n` parameters) that a hot path repeats with other values: on
 * postgres.js, in a transaction as outside one, it is prepared once per connection and text,
 * with no query building per call (drizzle's `execute` builds and re-plans every time: in a
 * configure, the largest part of the controller's own work); on PGlite it goes through
 * `execute`. The result has the shape `rowsOf` reads.
 */
export function executePrepared(
  db: Db,
  statement: { readonly text: string; readonly values: readonly unknown[] },
): Promise<unknown> {
  const run = preparedRunners.get(db);
  if (run) return run(statement.text, [...statement.values]);
  // A postgres.js transaction of drizzle: its session's client is the transaction's own connection.
  if (is(db, PostgresJsTransaction))
    return (db as unknown as { session: { client: postgres.Sql } }).session.client.unsafe(
      statement.text,
      [...statement.values] as never[],
      { prepare: true },
    );
  return db.execute(withParameters(statement.text, statement.values));
}

/** Whether {@link executePrepared} prepares on this database (postgres.js) rather than going through drizzle's `execute`. */
export function runsPrepared(db: Db): boolean {
  return preparedRunners.has(db) || is(db, PostgresJsTransaction);
}

/** Text with `$n` placeholders as drizzle SQL. */
function withParameters(text: string, values: readonly unknown[]): SQL {
  const parts = text.split(/\$(\d+)/);
  const chunks = parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql`${values[Number(part) - 1]}`));
  return sql.join(chunks);
}

/** How long one statement may run on PostgreSQL before the server cancels it (ms). */
const DEFAULT_STATEMENT_TIMEOUT_MS = 15_000;

/**
 * How long postgres.js may take to open a connection (seconds; its default is 30). A server that
 * is stopped refuses at once; one behind a network that drops packets does not answer at all, and
 * a request that needs a connection then waits this long before it is answered 503
 * (store/database-unavailable.ts). Opening a connection on a loaded local server takes
 * milliseconds, so 5 s fails only when something is wrong.
 */
export const CONNECT_TIMEOUT_SECONDS = 5;

/**
 * The wait before postgres.js opens a connection again after one failed, by the number of
 * failures in a row (seconds). Its default grows as 3^n/100 up to 20 s, and a query that needs
 * a connection waits that long first: measured with a stopped server, a request made a few
 * seconds into the outage waited 10.9 s and was answered only 7.5 s after the server was back.
 * Doubling from 50 ms up to 1 s, with jitter so that the pool's connections do not all try at
 * the same instant: a request is answered within about 1 s plus CONNECT_TIMEOUT_SECONDS while
 * the server is gone, and the pool finds it back within about 1 s of its return. A failed
 * attempt on a stopped server costs a refused TCP connection, so trying every second is cheap.
 */
function reconnectBackoffSeconds(failures: number): number {
  return (0.5 + Math.random() / 2) * Math.min(0.05 * 2 ** failures, 1);
}

/** The migrations folder, as shipped with the runtime. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL("./migrations", import.meta.url));
const asText = (value: string) => value;

/**
 * Opens PostgreSQL at `url` when given, else PGlite in `<dataDir>/pgdata`, and applies the
 * migrations (idempotent) unless `migrate` is false (`serve --no-migrate`: the caller checks
 * store/migration-state.ts instead). JSON columns come back as text so exact-json.ts can keep 64-bit
 * integers exact.
 *
 * On PostgreSQL every statement of the pool has a time-out ({@link DEFAULT_STATEMENT_TIMEOUT_MS}
 * unless `statementTimeoutMs` says otherwise; see statement-timeout.ts for the answer a request
 * gets); migrations run on a connection of their own without one, since building an index on a
 * large table may take longer. When the server goes away (stopped, restarted, crashed) the pool
 * needs nothing done: each query that finds no open connection opens one, within
 * {@link CONNECT_TIMEOUT_SECONDS} and after at most about 1 s of backoff
 * ({@link reconnectBackoffSeconds}); until the server is back, such a query fails with an error
 * that database-unavailable.ts recognises. PGlite runs inside the controller's process, where PostgreSQL's
 * timer cannot interrupt a statement (it accepts `statement_timeout` and ignores it), so there the
 * bounds on queries (rql.ts, rql-sql.ts) are what keep statements short.
 *
 * `pgliteTemplate` is for tests, which start hundreds of fresh embedded databases: the `pgdata`
 * folder of an embedded database that was migrated, closed, and holds nothing else. A NEW
 * embedded database (no `<dataDir>/pgdata/PG_VERSION` yet) then starts as a copy of it instead
 * of running initdb and every migration (measured on PGlite 0.5, 2 cores: ~2-3 s idle, several
 * more under load, against ~0.1-0.2 s to copy its ~40 MB and ~0.3 s to open the copy; PGlite's
 * own `loadDataDir` from a `dumpDataDir()` tarball opened in ~0.6-0.9 s). The migrations still
 * run after it (idempotent: a template behind the migrations folder is brought up to date).
 * An existing database and PostgreSQL ignore it; `aps-gen serve` never sets it.
 */
export async function openDatabase(options: {
  readonly dataDir: string;
  readonly url?: string;
  readonly statementTimeoutMs?: number;
  readonly migrate?: boolean;
  readonly pgliteTemplate?: string;
}): Promise<Database> {
  const migrate = options.migrate !== false;
  if (options.url && migrate) {
    const migrator = postgres(options.url, { onnotice: () => {}, max: 1, connect_timeout: CONNECT_TIMEOUT_SECONDS });
    try {
      await migratePostgres(drizzlePostgres({ client: migrator }), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await migrator.end({ timeout: 5 });
    }
  }
  if (options.url) return postgresPool(options.url, { statementTimeoutMs: options.statementTimeoutMs });
  const dir = join(options.dataDir, "pgdata");
  // PGlite does not create parent folders itself.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (options.pgliteTemplate && !existsSync(join(dir, "PG_VERSION")))
    cpSync(options.pgliteTemplate, dir, { recursive: true });
  const client = new PGlite(dir, { parsers: { [pgliteTypes.JSON]: asText, [pgliteTypes.JSONB]: asText } });
  const db = drizzlePglite({ client });
  if (migrate) await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
  // Its files are the whole database: private to the owner (see private-files.ts for why here and at close).
  makePrivate(dir);
  return {
    db: db as unknown as Db,
    kind: "pglite",
    close: async () => {
      await client.close();
      makePrivate(dir);
    },
  };
}

/**
 * A pool of connections to the PostgreSQL server at `url`, without migrations: the controller's
 * database, or a replica that lists and GETs are read from (replica-reads.ts), each read the
 * same way (JSON as text, hot statements prepared). Nothing connects before the first query.
 * `connectTimeoutSeconds` bounds a connection attempt (postgres.js waits 30 s by default): a
 * replica that went away must be given up on sooner than that.
 */
export function postgresPool(
  url: string,
  options: { readonly statementTimeoutMs?: number | undefined; readonly connectTimeoutSeconds?: number } = {},
): Database {
  const client = postgres(url, {
    onnotice: () => {},
    max: 10,
    connect_timeout: options.connectTimeoutSeconds ?? CONNECT_TIMEOUT_SECONDS,
    backoff: reconnectBackoffSeconds,
    connection: { statement_timeout: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS },
  });
  client.options.parsers[114] = asText;
  client.options.parsers[3802] = asText;
  const db = drizzlePostgres({ client });
  preparedRunners.set(db as unknown as Db, (text, values) => client.unsafe(text, values as never[], { prepare: true }));
  return { db: db as unknown as Db, kind: "postgres", close: () => client.end({ timeout: 5 }) };
}

/** The rows of `db.execute(...)`: postgres.js gives an array, PGlite an object with `rows`. */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : ((result as { rows?: unknown[] }).rows ?? [])) as T[];
}
