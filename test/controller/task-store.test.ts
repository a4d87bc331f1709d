import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../runtime/controller/store/open-database.ts";
import { scratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { TaskStore } from "../../runtime/controller/tasks/task-store.ts";

/**
 * Tasks run once: two controller processes (here: two connection pools on one PostgreSQL)
 * claiming concurrently never get the same task, and a lease that ran out frees a task again.
 */
describe.runIf(!!process.env.DATABASE_URL)("TaskStore on PostgreSQL shared by two processes", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "aps-tasks-"));
  let database: ScratchDatabase | undefined;
  let a: Database;
  let b: Database;

  beforeAll(async () => {
    database = await scratchDatabase("aps_tasks");
    const url = database.url;
    a = await openDatabase({ dataDir, url });
    b = await openDatabase({ dataDir, url });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("hands each due task to exactly one claimer", async () => {
    const storeA = new TaskStore(a.db);
    const storeB = new TaskStore(b.db);
    const call = { method: "POST", path: "/x/", transactionId: randomUUID() };
    for (let i = 0; i < 60; i++) await storeA.schedule(a.db, { resourceId: randomUUID(), operation: "provision", instanceId: randomUUID(), call, info: "", retrySeconds: 0 });
    const claimed: string[] = [];
    const drain = async (store: TaskStore) => {
      for (;;) {
        const task = await store.claimDue();
        if (!task) return;
        claimed.push(task.id);
        await store.finish(a.db, task.id);
      }
    };
    await Promise.all([drain(storeA), drain(storeB), drain(storeA), drain(storeB)]);
    expect(claimed).toHaveLength(60);
    expect(new Set(claimed).size).toBe(60);
  });

  it("does not hand out a leased task, and frees it when the lease has run out", async () => {
    const store = new TaskStore(a.db);
    const id = await store.schedule(a.db, { resourceId: randomUUID(), operation: "provision", instanceId: randomUUID(), call: { method: "POST", path: "/x/", transactionId: "t" }, info: "", retrySeconds: 0 });
    expect((await store.claimDue())?.id).toBe(id);
    expect(await new TaskStore(b.db).claimDue()).toBeUndefined();
    // The process that held it died: its lease ends.
    await a.db.execute(sql`update tasks set locked_until = now() - interval '1 second' where id = ${id}`);
    const again = await new TaskStore(b.db).claimDue();
    expect(again?.id).toBe(id);
    expect(again?.attempts).toBe(2);
  });
});
