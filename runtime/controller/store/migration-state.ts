/**
 * Which of the controller's migrations a database has, read the way drizzle's migrator decides
 * what to apply (drizzle-orm pg-core dialect `migrate`): a migration is applied when the newest
 * row of `drizzle.__drizzle_migrations` is at least as new as the migration's journal time.
 * Used by /readyz, by `serve` with `migrate: false` and by `migrateDatabase`.
 */
import { sql } from "drizzle-orm";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { MIGRATIONS_FOLDER, rowsOf, type Db } from "./open-database.ts";

/** How far a database is migrated. */
export interface MigrationState {
  /** Migrations this controller has. */
  readonly total: number;
  /** Those the database does not have yet. */
  readonly pending: number;
}

let journal: readonly number[] | undefined;

/** The journal times of the migrations, read once. */
function migrationTimes(): readonly number[] {
  journal ??= readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).map((m) => m.folderMillis);
  return journal;
}

/** Reads the state; rejects when the database does not answer. */
export async function migrationState(db: Db): Promise<MigrationState> {
  const times = migrationTimes();
  // Asked first, so a database never migrated (no such table) is not an error.
  const [table] = rowsOf<{ present: boolean }>(
    await db.execute(sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`),
  );
  let newest: number | undefined;
  if (table?.present) {
    const [row] = rowsOf<{ created_at: string | number | null }>(
      await db.execute(sql`select max(created_at) as created_at from drizzle.__drizzle_migrations`),
    );
    newest = row?.created_at === null || row?.created_at === undefined ? undefined : Number(row.created_at);
  }
  return { total: times.length, pending: times.filter((t) => newest === undefined || newest < t).length };
}
