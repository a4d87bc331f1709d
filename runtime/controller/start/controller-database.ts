import { migrationState } from "../store/migration-state.ts";
import { openDatabase, type Database } from "../store/open-database.ts";
import { redactedUrl } from "../support/redacted-url.ts";
import { ControllerStartError } from "../support/start-errors.ts";
import type { ControllerOptions } from "./controller-options.ts";
import type { HeldResources } from "./held-resources.ts";

/**
 * The database the controller runs on: the one a test hands it (which stays the test's to
 * close), or the one it opens and migrates (closed with the controller). With migrations left
 * to `aps-gen migrate`, a database that still lacks some is refused rather than served.
 */
export async function openControllerDatabase(
  options: ControllerOptions,
  dataDir: string,
  held: HeldResources,
): Promise<Database> {
  if (options.database) return options.database;
  const migrate = options.migrate !== false;
  const database = await openDatabase({
    dataDir,
    ...(options.databaseUrl ? { url: options.databaseUrl } : {}),
    migrate,
    pgliteTemplate: options.pgliteTemplate,
  }).catch((error: unknown) => {
    throw unreachable(options, error);
  });
  held.hold(() => database.close());
  if (!migrate) {
    // Also the first query on PostgreSQL (nothing connected yet without the migrator): it tells an unreachable server too.
    const refusal = await migrationState(database.db).then(
      (state) =>
        state.pending > 0
          ? new ControllerStartError(
              `the database ${options.databaseUrl ? `at ${redactedUrl(options.databaseUrl)}` : `in ${dataDir}`} has ${state.pending} of ${state.total} migrations not applied; run \`aps-gen migrate\` first, or start without --no-migrate`,
              "migrations-pending",
            )
          : undefined,
      (error: unknown) => unreachable(options, error),
    );
    if (refusal) throw refusal;
  }
  return database;
}

/** A PostgreSQL server that cannot be reached is a start error of one line; PGlite's errors stay as they are. */
function unreachable(options: ControllerOptions, error: unknown): Error {
  return options.databaseUrl
    ? new ControllerStartError(
        `cannot reach the database at ${redactedUrl(options.databaseUrl)}: ${(error as Error).message}`,
        "database-unreachable",
      )
    : (error as Error);
}
