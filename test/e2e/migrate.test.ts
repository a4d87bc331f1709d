/**
 * Issue 18: migrations as a step of their own. `migrateDatabase` applies them without serving
 * (the future `aps-gen migrate`); `startController({ migrate: false })` (`serve --no-migrate`)
 * applies none and refuses to start, with one ControllerStartError line, while any is pending.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRegistry } from "../../generator/emit/controller/registry-data.ts";
import { loadValidators } from "../../cli/validate/load-validators.ts";
import { compile } from "../../generator/pipeline.ts";
import type { TypeValidator } from "../../runtime/common/type-validator.ts";
import type { RegistryType } from "../../runtime/controller/registry.ts";
import { migrateDatabase, startController } from "../../runtime/controller/serve.ts";
import { ControllerStartError } from "../../runtime/controller/support/start-errors.ts";
import { httpsClient } from "../helpers/https-client.ts";
import { repoRoot } from "../helpers/paths.ts";
import { scratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { databases } from "./controller-harness.ts";

describe.each(databases)("migrations without serving on %s", (kind) => {
  const dir = mkdtempSync(join(tmpdir(), "aps-migrate-"));
  let types: readonly RegistryType[] = [];
  let validators: ReadonlyMap<string, TypeValidator> = new Map();
  const scratch: ScratchDatabase[] = [];
  let n = 0;
  /** A data folder and, on PostgreSQL, a database of its own, neither migrated. */
  const fresh = async () => {
    const dataDir = join(dir, `data-${n++}`);
    if (kind === "pglite") return { dataDir };
    const database = await scratchDatabase("aps_migrate");
    scratch.push(database);
    return { dataDir, databaseUrl: database.url };
  };
  const start = (where: { dataDir: string; databaseUrl?: string }, migrate?: boolean) =>
    startController({
      types,
      validators,
      port: 0,
      ...where,
      ...(migrate === undefined ? {} : { migrate }),
      logger: pino({ level: "silent" }),
    });

  beforeAll(async () => {
    const { model } = compile(["test/fixtures/controller/notes"], { cwd: repoRoot });
    types = buildRegistry(model);
    validators = await loadValidators(model);
  });
  afterAll(async () => {
    for (const database of scratch) await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serve --no-migrate refuses a database without migrations; migrate applies them once; then it serves", async () => {
    const where = await fresh();
    const refused = await start(where, false).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ControllerStartError);
    const error = refused as ControllerStartError;
    expect(error.reason).toBe("migrations-pending");
    expect(error.message).toMatch(
      /^the database (at|in) .+ has \d+ of \d+ migrations not applied; run `aps-gen migrate` first, or start without --no-migrate$/,
    );
    expect(error.message).not.toContain("\n");
    const [, pending, total] = /has (\d+) of (\d+)/.exec(error.message)!;
    expect(pending).toBe(total);

    // It let go of the data folder and the database: migrating is possible at once.
    const first = await migrateDatabase(where);
    expect(first).toEqual({ database: kind, applied: Number(total), total: Number(total) });
    expect(await migrateDatabase(where)).toEqual({ database: kind, applied: 0, total: Number(total) });

    const running = await start(where, false);
    try {
      const call = httpsClient(running.url, running.caCert);
      const ready = await call("GET", "/readyz");
      expect(ready.status, ready.text).toBe(200);
      expect(ready.json.migrations).toEqual({ applied: Number(total), total: Number(total) });
    } finally {
      await running.close();
    }
  }, 60_000);

  it.runIf(kind === "postgres")(
    "serve --no-migrate refuses a database that lacks one migration, naming how many",
    async () => {
      const where = await fresh();
      await migrateDatabase(where);
      const sql = postgres(where.databaseUrl!, { onnotice: () => {}, max: 1 });
      try {
        const [newest] =
          await sql`delete from drizzle.__drizzle_migrations where id = (select id from drizzle.__drizzle_migrations order by created_at desc limit 1) returning id, hash, created_at`;
        const refused = await start(where, false).then(
          () => undefined,
          (error: unknown) => error as ControllerStartError,
        );
        expect(refused?.reason).toBe("migrations-pending");
        expect(refused?.message).toMatch(/has 1 of \d+ migrations not applied/);
        // The password never reaches the message (there is none here: the URL is shown as given).
        expect(refused?.message).toContain(`at ${where.databaseUrl}`);
        await sql`insert into drizzle.__drizzle_migrations (id, hash, created_at) values (${newest!.id}, ${newest!.hash}, ${newest!.created_at})`;
      } finally {
        await sql.end();
      }
      const running = await start(where, false);
      await running.close();
    },
    60_000,
  );
});

describe("migrate and serve --no-migrate against a server that is not there", () => {
  it("say so in one line", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "aps-migrate-down-"));
    try {
      const url = "postgres://aps:s3cret@127.0.0.1:1/nothing";
      const error = await migrateDatabase({ dataDir, databaseUrl: url }).then(
        () => undefined,
        (e: unknown) => e as ControllerStartError,
      );
      expect(error).toBeInstanceOf(ControllerStartError);
      expect(error?.reason).toBe("database-unreachable");
      expect(error?.message).toMatch(/^cannot reach the database at postgres:\/\/aps:\*\*\*@127\.0\.0\.1:1\/nothing: /);
      expect(error?.message).not.toContain("s3cret");
      const { model } = compile(["test/fixtures/controller/notes"], { cwd: repoRoot });
      const refused = await startController({
        types: buildRegistry(model),
        validators: await loadValidators(model),
        port: 0,
        dataDir,
        databaseUrl: url,
        migrate: false,
        logger: pino({ level: "silent" }),
      }).then(
        () => undefined,
        (e: unknown) => e as ControllerStartError,
      );
      expect(refused?.reason).toBe("database-unreachable");
      expect(refused?.message).not.toContain("s3cret");
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
