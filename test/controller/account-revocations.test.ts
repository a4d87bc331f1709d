import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountRevocationFeed } from "../../runtime/controller/auth/account-revocations.ts";
import { openDatabase, type Database } from "../../runtime/controller/store/open-database.ts";
import { isOwnerAccountGone } from "../../runtime/controller/store/owner-account-error.ts";
import { pgliteTemplate } from "../helpers/pglite-template.ts";
import { scratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";

const databases: readonly ("pglite" | "postgres")[] = process.env.DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

/**
 * Migration 0006 (issue 15 items 4 and 5): the triggers that write account revocations and the
 * feed that reads them; the trigger that stores no resource for an account that is gone.
 */
describe.each(databases)("account revocations and owner accounts on %s", (kind) => {
  const dir = mkdtempSync(join(tmpdir(), "aps-revocations-"));
  let scratch: ScratchDatabase | undefined;
  let database: Database;
  const heard: string[][] = [];
  let all = 0;
  const listener = { revoke: (ids: readonly string[]) => void heard.push([...ids]), revokeAll: () => void all++ };
  const account = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
  const insert = (id: string, owner: string, path = `/${owner}/`) =>
    database.db.execute(
      sql`insert into resources (id, type_id, status, revision, created, modified, owner_account, owner_path, body) values (${id}, 'x', 'aps:ready', 1, now(), now(), ${owner}, ${path}, '{}')`,
    );

  beforeAll(async () => {
    scratch = kind === "postgres" ? await scratchDatabase("aps_revocations") : undefined;
    database = await openDatabase({
      dataDir: dir,
      ...(scratch ? { url: scratch.url } : { pgliteTemplate: await pgliteTemplate() }),
    });
  }, 60_000);
  afterAll(async () => {
    await database.close();
    await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("hears deletes and status changes of accounts, not of other resources or other columns", async () => {
    const feed = new AccountRevocationFeed(database.db, listener, { pollMs: 60_000, retentionMs: 3_600_000 });
    expect(feed.ready).toBe(false);
    await feed.poll();
    expect(feed.ready).toBe(true);
    await insert(account(1), account(1));
    await insert(account(2), account(2));
    await insert(account(3), account(1)); // a resource of account 1, not an account
    await database.db.execute(sql`update resources set revision = 2 where id = ${account(1)}`);
    await database.db.execute(sql`update resources set status = 'aps:disabled' where id = ${account(3)}`);
    await database.db.execute(sql`delete from resources where id = ${account(3)}`);
    await feed.poll();
    expect(heard).toEqual([]);
    await database.db.execute(sql`update resources set status = 'aps:disabled' where id = ${account(1)}`);
    await database.db.execute(sql`delete from resources where id = ${account(2)}`);
    await feed.poll();
    expect(heard).toEqual([[account(1), account(2)]]);
    await feed.poll();
    expect(heard).toHaveLength(1);
    expect(all).toBe(0);
  });

  it("forgets everything when revocations it had not seen were pruned", async () => {
    const feed = new AccountRevocationFeed(database.db, listener, { pollMs: 60_000, retentionMs: 3_600_000 });
    await feed.poll();
    await database.db.execute(sql`update resources set status = 'aps:ready' where id = ${account(1)}`);
    await database.db.execute(sql`delete from account_revocations`);
    await feed.poll();
    expect(all).toBe(1);
    await feed.stop();
  });

  it("stores no resource, and no account, under an account that does not exist", async () => {
    const refused = async (work: Promise<unknown>) => {
      const error = await work.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isOwnerAccountGone(error), String(error)).toBe(true);
    };
    await refused(insert(account(10), account(99)));
    // A new account under a parent that is gone.
    await refused(insert(account(11), account(11), `/${account(1)}/${account(99)}/${account(11)}/`));
    await insert(account(12), account(12), `/${account(1)}/${account(12)}/`);
    const rows = await database.db.execute(sql`select id from resources where id in (${account(10)}, ${account(11)})`);
    expect(Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows).toHaveLength(0);
  });

  it.runIf(kind === "postgres")(
    "makes a provisioning that races the delete of its account wait, then refuses it",
    async () => {
      await insert(account(20), account(20));
      const a = postgres(scratch!.url, { onnotice: () => {}, max: 1 });
      const b = postgres(scratch!.url, { onnotice: () => {}, max: 1 });
      try {
        let inserted: Promise<unknown> | undefined;
        await a.begin(async (tx) => {
          // What the delete of an account does (resources/unprovisioning.ts): lock, check, delete.
          await tx`select 1 from resources where id = ${account(20)} for update`;
          inserted =
            b`insert into resources (id, type_id, status, revision, created, modified, owner_account, owner_path, body) values (${account(21)}, 'x', 'aps:ready', 1, now(), now(), ${account(20)}, ${`/${account(20)}/`}, '{}')`.then(
              () => "stored",
              (e: unknown) => e,
            );
          await new Promise((r) => setTimeout(r, 300));
          const [held] =
            await tx`select count(*)::int as n from resources where owner_account = ${account(20)} and id <> ${account(20)}`;
          expect(held!.n).toBe(0);
          await tx`delete from resources where id = ${account(20)}`;
        });
        expect(isOwnerAccountGone(await inserted)).toBe(true);
        expect(await a`select id from resources where id = ${account(21)}`).toHaveLength(0);
      } finally {
        await Promise.all([a.end(), b.end()]);
      }
    },
  );
});
