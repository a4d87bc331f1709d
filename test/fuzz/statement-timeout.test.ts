/**
 * Issue 15, item 18: every statement on PostgreSQL has a time-out, and a statement cancelled by
 * it is answered with 503 in the error shape (not a 500). PGlite cannot interrupt a statement
 * (see open-database.ts), so the first test needs PostgreSQL.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../runtime/controller/store/open-database.ts";
import { isStatementTimeout } from "../../runtime/controller/store/statement-timeout.ts";
import { scratchDatabase } from "../helpers/scratch-database.ts";
import { isErrorShape, startInProcessController } from "./in-process-controller.ts";

describe("statement time-out", () => {
  it.skipIf(!process.env.DATABASE_URL)("PostgreSQL cancels a statement that runs past it", async () => {
    const scratch = await scratchDatabase("aps_timeout");
    const dataDir = mkdtempSync(join(tmpdir(), "aps-timeout-"));
    const database = await openDatabase({ dataDir, url: scratch.url, statementTimeoutMs: 300 });
    try {
      const started = performance.now();
      const error = await database.db.execute(sql`select pg_sleep(3)`).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, "pg_sleep(3) finished: no statement time-out").toBeDefined();
      expect(isStatementTimeout(error)).toBe(true);
      expect(performance.now() - started).toBeLessThan(2000);
      // Later statements on the pool still run.
      expect(await database.db.execute(sql`select 1 as one`)).toBeTruthy();
    } finally {
      await database.close();
      await scratch.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("a cancelled statement is a 503 in the error shape", async () => {
    const c = await startInProcessController("pglite", ["test/fixtures/controller/notes"]);
    try {
      // What both drivers raise (drizzle wraps it, the driver's error is its cause).
      const cancelled = Object.assign(new Error("Failed query: select ..."), {
        cause: Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" }),
      });
      c.catalog.refresh = () => Promise.reject(cancelled);
      const r = await c.request("/aps/2/packages");
      const body = await r.json();
      expect(r.status).toBe(503);
      expect(isErrorShape(503, body)).toBe(true);
      expect((body as { message: string }).message).toMatch(/statement time-out/);
    } finally {
      await c.dispose();
    }
  });
});
