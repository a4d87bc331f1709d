/**
 * `openDatabase`'s `pgliteTemplate` (what the test harnesses start every embedded database
 * from): a new database starts as a migrated copy of the template, an existing one keeps its own
 * data, and nothing written to a copy reaches the template or another copy.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, rowsOf, type Database } from "../../runtime/controller/store/open-database.ts";
import { migrationState } from "../../runtime/controller/store/migration-state.ts";
import { pgliteTemplate } from "../helpers/pglite-template.ts";

describe("openDatabase from a PGlite template", () => {
  const root = mkdtempSync(join(tmpdir(), "aps-template-test-"));
  const template = join(root, "template", "pgdata");
  const marks = async (database: Database) =>
    rowsOf<{ mark: string }>(await database.db.execute(sql`select mark from template_marks order by mark`)).map(
      (r) => r.mark,
    );

  beforeAll(async () => {
    // A template that holds one row of its own, so a copy can be told from a fresh database
    // (itself a copy of the run's template: initdb is the slow part this option exists to avoid).
    const made = await openDatabase({ dataDir: join(root, "template"), pgliteTemplate: await pgliteTemplate() });
    await made.db.execute(sql`create table template_marks (mark text)`);
    await made.db.execute(sql`insert into template_marks values ('from the template')`);
    await made.close();
  }, 60_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("starts a new database as a migrated copy, and writes to the copy stay in it", async () => {
    const first = await openDatabase({ dataDir: join(root, "a"), pgliteTemplate: template });
    try {
      expect(await marks(first)).toEqual(["from the template"]);
      expect((await migrationState(first.db)).pending).toBe(0);
      await first.db.execute(sql`insert into template_marks values ('written to a')`);
    } finally {
      await first.close();
    }
    const second = await openDatabase({ dataDir: join(root, "b"), pgliteTemplate: template });
    try {
      expect(await marks(second)).toEqual(["from the template"]);
    } finally {
      await second.close();
    }
  }, 60_000);

  it("leaves an existing database as it is", async () => {
    const own = await openDatabase({ dataDir: join(root, "c"), pgliteTemplate: await pgliteTemplate() });
    await own.close();
    const reopened = await openDatabase({ dataDir: join(root, "c"), pgliteTemplate: template });
    try {
      await expect(marks(reopened)).rejects.toThrow(/template_marks/);
    } finally {
      await reopened.close();
    }
  }, 60_000);
});
