import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, rowsOf, type Database } from "../../runtime/controller/store/open-database.ts";
import { pgliteTemplate } from "../helpers/pglite-template.ts";
import { scratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { TaskStore } from "../../runtime/controller/tasks/task-store.ts";
import { PropertySealer } from "../../runtime/controller/support/encryption.ts";

const sealer = new PropertySealer(new Uint8Array(32).fill(7));

/**
 * Tasks run once: two controller processes (here: two connection pools on one PostgreSQL)
 * claiming concurrently never get the same task, and a lease that ran out frees a task again.
 */
describe.runIf(!!process.env.DATABASE_URL)("TaskStore on PostgreSQL shared by two processes", () => {
  let dataDir = "";
  let database: ScratchDatabase | undefined;
  let a: Database;
  let b: Database;

  beforeAll(async () => {
    // Made here, not while collecting: without DATABASE_URL the describe is skipped and runs no afterAll.
    dataDir = mkdtempSync(join(tmpdir(), "aps-tasks-"));
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
    const storeA = new TaskStore(a.db, sealer);
    const storeB = new TaskStore(b.db, sealer);
    const call = { method: "POST", path: "/x/", transactionId: randomUUID() };
    for (let i = 0; i < 60; i++)
      await storeA.schedule(a.db, {
        resourceId: randomUUID(),
        operation: "provision",
        instanceId: randomUUID(),
        call,
        info: "",
        retrySeconds: 0,
      });
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
    const store = new TaskStore(a.db, sealer);
    const id = await store.schedule(a.db, {
      resourceId: randomUUID(),
      operation: "provision",
      instanceId: randomUUID(),
      call: { method: "POST", path: "/x/", transactionId: "t" },
      info: "",
      retrySeconds: 0,
    });
    expect((await store.claimDue())?.id).toBe(id);
    expect(await new TaskStore(b.db, sealer).claimDue()).toBeUndefined();
    // The process that held it died: its lease ends.
    await a.db.execute(sql`update tasks set locked_until = now() - interval '1 second' where id = ${id}`);
    const again = await new TaskStore(b.db, sealer).claimDue();
    expect(again?.id).toBe(id);
    expect(again?.attempts).toBe(2);
  });
});

/**
 * Issue 15 item 1: the body of a repeated call holds encrypted properties in clear, so it is
 * stored sealed, and dropped when the task ends.
 */
describe.each(process.env.DATABASE_URL ? ["pglite", "postgres"] : ["pglite"])("task bodies at rest on %s", (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), "aps-task-bodies-"));
  let database: ScratchDatabase | undefined;
  let db: Database;
  const secret = "pw-7f3a9c1e-never-in-clear";
  const body = JSON.stringify({ aps: { type: "http://x/t/1.0" }, password: secret });
  const schedule = (store: TaskStore) =>
    store.schedule(db.db, {
      resourceId: randomUUID(),
      operation: "provision",
      instanceId: randomUUID(),
      call: { method: "POST", path: "/x/", body, transactionId: "t" },
      info: "",
      retrySeconds: 0,
    });
  const rawBody = async (id: string) =>
    rowsOf<{ body: string | null }>(await db.db.execute(sql`select body from tasks where id = ${id}`))[0]?.body;

  beforeAll(async () => {
    if (kind === "postgres") database = await scratchDatabase("aps_task_bodies");
    db = await openDatabase({
      dataDir,
      ...(database ? { url: database.url } : { pgliteTemplate: await pgliteTemplate() }),
    });
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("stores the body sealed and hands it back opened to the claimer", async () => {
    const store = new TaskStore(db.db, sealer);
    const id = await schedule(store);
    const stored = await rawBody(id);
    expect(stored).toMatch(/^sealed:v1:[A-Za-z0-9+/=]+$/);
    expect(stored).not.toContain(secret);
    expect(Buffer.from(stored!.slice("sealed:v1:".length), "base64").toString("latin1")).not.toContain(secret);
    const claimed = await store.claimDue();
    expect(claimed?.id).toBe(id);
    expect(claimed?.body).toBe(body);
    // Another key does not open it.
    await db.db.execute(sql`update tasks set locked_until = null where id = ${id}`);
    await expect(new TaskStore(db.db, new PropertySealer(new Uint8Array(32).fill(8))).claimDue()).rejects.toThrow();
  });

  it("drops the body when the task is done or failed", async () => {
    const store = new TaskStore(db.db, sealer);
    await db.db.execute(sql`delete from tasks`);
    const done = await schedule(store);
    await store.finish(db.db, done);
    const failed = await schedule(store);
    await store.fail(failed, "the application answered 500");
    expect(await rawBody(done)).toBeNull();
    expect(await rawBody(failed)).toBeNull();
  });

  it("still runs a task written before bodies were sealed", async () => {
    const store = new TaskStore(db.db, sealer);
    await db.db.execute(sql`delete from tasks`);
    const id = await schedule(store);
    await db.db.execute(sql`update tasks set body = ${body} where id = ${id}`);
    expect((await store.claimDue())?.body).toBe(body);
  });
});
