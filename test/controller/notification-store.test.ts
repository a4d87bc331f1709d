import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotificationStore } from "../../runtime/controller/events/notification-store.ts";
import { notificationStatement } from "../../runtime/controller/events/outbox.ts";
import { executePrepared, openDatabase, type Database, type Db } from "../../runtime/controller/store/open-database.ts";
import { scratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";

const CHANGED = "http://aps-standard.org/core/events/changed";

/**
 * Serials follow commit order, not insertion order: an event committed late never gets a serial
 * below one already handed out; each subscriber gets its notifications one at a time, in serial
 * order; and two processes sequencing at once never give the same serial twice.
 */
describe.runIf(!!process.env.DATABASE_URL)("NotificationStore on PostgreSQL shared by two processes", () => {
  let dataDir = "";
  let database: ScratchDatabase | undefined;
  let a: Database;
  let b: Database;
  const subscriber = randomUUID();
  const source = { id: randomUUID(), typeId: "http://x.example/t/1.0" };

  beforeAll(async () => {
    // Made here, not while collecting: without DATABASE_URL the describe is skipped and runs no afterAll.
    dataDir = mkdtempSync(join(tmpdir(), "aps-outbox-"));
    database = await scratchDatabase("aps_outbox");
    const url = database.url;
    a = await openDatabase({ dataDir, url });
    b = await openDatabase({ dataDir, url });
    const now = new Date().toISOString();
    for (const id of [subscriber, source.id]) {
      await a.db.execute(
        sql`insert into resources (id, type_id, status, revision, created, modified, owner_account, owner_path, body) values (${id}, ${source.typeId}, 'aps:ready', 1, ${now}, ${now}, null, '/p/', '{}'::jsonb)`,
      );
    }
    await a.db.execute(
      sql`insert into subscriptions (id, subscriber_id, event, source_type, handler, created) values (${randomUUID()}, ${subscriber}, ${CHANGED}, ${source.typeId}, 'onChange', ${now})`,
    );
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const event = (db: Db) =>
    executePrepared(
      db,
      notificationStatement([
        { event: CHANGED, sourceId: source.id, sourceTypes: [source.typeId], ownerAccount: null, ownerPath: "/p/" },
      ]),
    );

  it("gives serials in commit order: a transaction that commits late gets the later serial", async () => {
    const store = new NotificationStore(a.db);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const lateInserted = new Promise<void>((r) => (inserted = r));
    // The late one inserts first (lower id) and commits last.
    const late = b.db.transaction(async (tx) => {
      await event(tx as unknown as Db);
      inserted();
      await held;
    });
    await lateInserted;
    await event(a.db);
    expect(await store.sequence()).toBe(1);
    release();
    await late;
    expect(await store.sequence()).toBe(1);
    const rows = (await a.db.execute(sql`select id, serial from notifications order by serial`)) as unknown as {
      id: string;
      serial: string;
    }[];
    expect(rows.map((r) => Number(r.serial))).toEqual([1, 2]);
    // The row inserted first (the late commit) got serial 2.
    expect(Number(rows[1]!.id)).toBeLessThan(Number(rows[0]!.id));
  });

  it("hands a subscriber one notification at a time, oldest serial first", async () => {
    const store = new NotificationStore(a.db);
    const first = await store.claim(10);
    expect(first.map((n) => n.serial)).toEqual([1]);
    // Serial 2 waits while 1 is in hand, on any process.
    expect(await new NotificationStore(b.db).claim(10)).toEqual([]);
    await store.failed(first[0]!.id, "down", 0, false);
    // A failed head is retried before anything after it.
    const again = await store.claim(10);
    expect(again.map((n) => [n.serial, n.attempts])).toEqual([[1, 1]]);
    await store.delivered(again[0]!.id);
    expect((await store.claim(10)).map((n) => n.serial)).toEqual([2]);
  });

  it("never gives one serial twice when two processes sequence at once", async () => {
    for (let i = 0; i < 200; i++) await event((i % 2 ? a : b).db);
    const stores = [new NotificationStore(a.db), new NotificationStore(b.db)];
    let given = 0;
    for (let round = 0; round < 50 && given < 200; round++)
      given += (await Promise.all(stores.map((s) => s.sequence()))).reduce((x, y) => x + y, 0);
    expect(given).toBe(200);
    const serials = (
      (await a.db.execute(sql`select serial from notifications where serial > 2`)) as unknown as { serial: string }[]
    ).map((r) => Number(r.serial));
    expect(new Set(serials).size).toBe(200);
    expect(Math.min(...serials)).toBe(3);
    expect(Math.max(...serials)).toBe(202);
  });
});
