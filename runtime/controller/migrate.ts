/**
 * Applies the controller's database migrations without serving (for `aps-gen migrate`, issue 18):
 * a deployment runs it once, before starting controllers with `migrate: false` (`serve
 * --no-migrate`), so that several processes on one PostgreSQL never race to migrate and none
 * serves a schema it was not written for. Idempotent: a migrated database is left as it is.
 */
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { lockDataFolder } from "./support/data-folder-lock.ts";
import { holdPrivateUmask } from "./support/private-files.ts";
import { redactedUrl } from "./support/redacted-url.ts";
import { ControllerStartError } from "./support/start-errors.ts";
import { migrationState, type MigrationState } from "./store/migration-state.ts";
import { openDatabase } from "./store/open-database.ts";

/** What {@link migrateDatabase} did. */
export interface MigrationReport {
  readonly database: "pglite" | "postgres";
  /** Migrations applied now (0 when the database was up to date). */
  readonly applied: number;
  /** Migrations this controller has, all applied now. */
  readonly total: number;
}

/**
 * Migrates PostgreSQL at `databaseUrl` when given, else the embedded database of `dataDir`
 * (created when absent; held with the data folder lock meanwhile, so not while a controller
 * serves from it). Rejects with a {@link ControllerStartError} when the database cannot be
 * reached or the data folder is in use; a migration that fails rejects with the database's error
 * (each migration is one transaction: nothing of it stays).
 */
export async function migrateDatabase(options: {
  readonly databaseUrl?: string;
  readonly dataDir: string;
}): Promise<MigrationReport> {
  const dataDir = resolve(options.dataDir);
  const url = options.databaseUrl;
  const releaseUmask = holdPrivateUmask();
  try {
    if (!url) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const releaseFolder = url ? () => {} : lockDataFolder(dataDir);
    try {
      const state = async (migrate: boolean): Promise<MigrationState & { kind: "pglite" | "postgres" }> => {
        const database = await openDatabase({ dataDir, ...(url ? { url } : {}), migrate }).catch((error: unknown) => {
          throw url ? unreachable(url, error) : error;
        });
        try {
          return {
            ...(await migrationState(database.db).catch((error: unknown) =>
              Promise.reject(url ? unreachable(url, error) : error),
            )),
            kind: database.kind,
          };
        } finally {
          await database.close();
        }
      };
      // Looked at first, so an up-to-date database is only read and the report says what changed.
      const before = await state(false);
      if (before.pending === 0) return { database: before.kind, applied: 0, total: before.total };
      const after = await state(true);
      return { database: after.kind, applied: before.pending - after.pending, total: after.total };
    } finally {
      releaseFolder();
    }
  } finally {
    releaseUmask();
  }
}

function unreachable(url: string, error: unknown): ControllerStartError {
  return new ControllerStartError(
    `cannot reach the database at ${redactedUrl(url)}: ${(error as Error).message}`,
    "database-unreachable",
  );
}
