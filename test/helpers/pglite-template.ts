import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The name every template folder of a test run starts with (in the run's temporary folder: test/global-setup.ts). */
const PGLITE_TEMPLATE_PREFIX = "aps-pglite-template-";

/** Where this run's template lives: one per run, shared read-only by every suite that copies it. */
function pgliteTemplateFolder(run: string): string {
  return join(tmpdir(), `${PGLITE_TEMPLATE_PREFIX}${run}`);
}

let made: Promise<string> | undefined;

/**
 * The `pgdata` folder of a migrated, empty embedded database, for `openDatabase`'s and
 * `startController`'s `pgliteTemplate`: each suite's database starts as a copy of it instead of
 * running initdb and the migrations (~2-3 s a suite on 2 cores, more under load). Each suite still
 * gets a database of its own; the template itself is never opened after it is made.
 *
 * Made lazily by the first suite that asks (a run of unit tests pays nothing), in a staging folder
 * renamed into place. A suite of the other worker asking meanwhile waits for it rather than make
 * a second one on the same two cores; if the maker stops without one (its worker killed), the
 * waiter makes its own, and the first rename wins. Only under vitest (the run id of
 * test/global-setup.ts); elsewhere, undefined: every database is made from scratch.
 */
export function pgliteTemplate(): Promise<string | undefined> {
  const run = process.env.APS_GEN_TEST_RUN;
  if (!run) return Promise.resolve(undefined);
  return (made ??= makeTemplate(pgliteTemplateFolder(run)));
}

/** How long a suite waits for another worker's template before it makes its own. */
const WAIT_FOR_OTHER_MS = 120_000;

async function makeTemplate(folder: string): Promise<string> {
  const ready = () => existsSync(join(folder, "PG_VERSION"));
  if (ready()) return folder;
  // mkdir is atomic: one worker holds this folder while it makes the template.
  const lock = `${folder}-making`;
  try {
    mkdirSync(lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const end = Date.now() + WAIT_FOR_OTHER_MS;
    while (!ready() && existsSync(lock) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    return ready() ? folder : makeIn(folder);
  }
  try {
    return await makeIn(folder);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Makes the template in a staging folder and renames it into place. */
async function makeIn(folder: string): Promise<string> {
  const staging = mkdtempSync(`${folder}-staging-`);
  try {
    // Loaded here, not at the top: a run of unit tests would otherwise load PGlite and drizzle
    // first (~0.3 s).
    const { openDatabase } = await import("../../runtime/controller/store/open-database.ts");
    const { sql } = await import("drizzle-orm");
    const database = await openDatabase({ dataDir: staging });
    // The controller uses the `postgres` database only. Without the two template databases a
    // copy is 459 files instead of 1059, and every embedded database of a test run is a copy.
    for (const statement of [
      "update pg_database set datistemplate = false where datname in ('template0', 'template1')",
      "drop database template0",
      "drop database template1",
      "checkpoint",
    ]) {
      await database.db.execute(sql.raw(statement));
    }
    await database.close();
    try {
      renameSync(join(staging, "pgdata"), folder);
    } catch (error) {
      // Another worker's template got there first: it is as good as this one.
      if (!existsSync(join(folder, "PG_VERSION"))) throw error;
    }
    return folder;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
