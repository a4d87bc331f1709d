/**
 * Package archives are stored in 64 KiB parts, a statement each (the embedded database runs on
 * the serving thread; a whole 2 MB archive in one statement held it for 140–250 ms). An archive
 * comes back byte for byte whatever its size; a failed store leaves no part behind; an archive
 * stored before migration 0010 (in the packages row) is moved whole and still reads back.
 * PGlite and PostgreSQL.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { count, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ARCHIVE_PART_BYTES,
  readArchive,
  removeArchive,
  storeArchive,
} from "../../runtime/controller/packages/archive-store.ts";
import type { Db } from "../../runtime/controller/store/open-database.ts";
import { openDatabase, type Database } from "../../runtime/controller/store/open-database.ts";
import { packageArchiveParts } from "../../runtime/controller/store/schema.ts";
import { databases } from "../helpers/databases.ts";
import { pgliteTemplate } from "../helpers/pglite-template.ts";
import { scratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";

const MIGRATIONS = join(import.meta.dirname, "../../runtime/controller/store/migrations");

describe.each(databases)("package archive parts on %s", (kind) => {
  const dir = mkdtempSync(join(tmpdir(), "aps-archive-"));
  let scratch: ScratchDatabase | undefined;
  let database: Database;
  const partsOf = async (id: string) =>
    (
      await database.db.select({ n: count() }).from(packageArchiveParts).where(eq(packageArchiveParts.packageId, id))
    )[0]!.n;

  beforeAll(async () => {
    scratch = kind === "postgres" ? await scratchDatabase("aps_archive") : undefined;
    database = await openDatabase({
      dataDir: dir,
      ...(scratch ? { url: scratch.url } : { pgliteTemplate: await pgliteTemplate() }),
    });
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ["empty", 0, 1],
    ["smaller than a part", 1000, 1],
    ["exactly one part", ARCHIVE_PART_BYTES, 1],
    ["a part and a byte", ARCHIVE_PART_BYTES + 1, 2],
    ["2 MB", 2 * 1024 * 1024 + 17, 33],
  ])("stores an archive %s (%i bytes) in %i part(s) and reads it back byte for byte", async (_, size, parts) => {
    const id = randomUUID();
    const archive = new Uint8Array(randomBytes(size));
    await storeArchive(database.db, id, archive);
    expect(await partsOf(id)).toBe(parts);
    expect(Buffer.from((await readArchive(database.db, id))!).equals(Buffer.from(archive))).toBe(true);
    await removeArchive(database.db, id);
    expect(await readArchive(database.db, id)).toBeUndefined();
  });

  it("stores a view into a larger buffer as the view's bytes only", async () => {
    const id = randomUUID();
    const whole = new Uint8Array(randomBytes(3 * ARCHIVE_PART_BYTES));
    const view = whole.subarray(100, 100 + ARCHIVE_PART_BYTES + 5);
    await storeArchive(database.db, id, view);
    expect(Buffer.from((await readArchive(database.db, id))!).equals(Buffer.from(view))).toBe(true);
  });

  it("leaves no part behind when a part cannot be written", async () => {
    const id = randomUUID();
    // Part 1 is taken, so storing the archive fails on its second part, after part 0 went in.
    await database.db.insert(packageArchiveParts).values({ packageId: id, part: 1, bytes: new Uint8Array([1]) });
    await expect(storeArchive(database.db, id, new Uint8Array(ARCHIVE_PART_BYTES * 2))).rejects.toThrow();
    expect(await partsOf(id)).toBe(0);
  });
});

describe("migration 0010", () => {
  it("moves an archive stored in its packages row into part 0, whole, and drops the column", async () => {
    const pg = await PGlite.create();
    try {
      const files = readdirSync(MIGRATIONS)
        .filter((f) => f.endsWith(".sql"))
        .sort();
      const run = async (file: string) => {
        for (const statement of readFileSync(join(MIGRATIONS, file), "utf8").split("--> statement-breakpoint"))
          await pg.exec(statement);
      };
      const before = files.filter((f) => f < "0010");
      expect(before.length).toBe(10);
      for (const f of before) await run(f);
      const id = randomUUID();
      const archive = randomBytes(3 * ARCHIVE_PART_BYTES + 7);
      await pg.query(
        `insert into packages (id, app_id, name, version, release, archive, imported) values ($1, 'a', 'n', '1.0', '1', decode($2, 'hex'), now())`,
        [id, archive.toString("hex")],
      );
      await run(files.find((f) => f.startsWith("0010"))!);
      const db = drizzle({ client: pg }) as unknown as Db;
      expect(Buffer.from((await readArchive(db, id))!).equals(archive)).toBe(true);
      const columns = await pg.query<{ column_name: string }>(
        `select column_name from information_schema.columns where table_name = 'packages'`,
      );
      expect(columns.rows.map((r) => r.column_name)).not.toContain("archive");
    } finally {
      await pg.close();
    }
  });
});
