/**
 * Issue 28 item 5: a transaction id is a UUID, and what it stands for is a row every controller
 * process reads (on PostgreSQL, two pools stand for two processes); an id that is unknown, not
 * a UUID, or past its validity is nothing but an unknown id, and expired rows are deleted.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TransactionStore } from "../../runtime/controller/forward/transaction-store.ts";
import { openDatabase, rowsOf, type Database } from "../../runtime/controller/store/open-database.ts";
import { PropertySealer } from "../../runtime/controller/support/encryption.ts";
import { databases } from "../helpers/databases.ts";
import { pgliteTemplate } from "../helpers/pglite-template.ts";
import { scratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";

/** RFC 4122 text form: 8-4-4-4-12 hex digits, a version nibble and the RFC variant. */
const RFC_4122 = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const claims = {
  resourceId: randomUUID(),
  typeId: "http://cloudmail.example.com/types/tenant/1.0",
  instanceId: randomUUID(),
};

describe.each(databases)("TransactionStore on %s", (kind) => {
  let dataDir = "";
  let scratch: ScratchDatabase | undefined;
  let a: Database;
  /** Another process on the same database (PGlite has one: there, another store over it). */
  let b: Database;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "aps-transactions-"));
    if (kind === "postgres") {
      scratch = await scratchDatabase("aps_transactions");
      a = await openDatabase({ dataDir, url: scratch.url });
      b = await openDatabase({ dataDir, url: scratch.url });
    } else {
      a = await openDatabase({ dataDir, pgliteTemplate: await pgliteTemplate() });
      b = a;
    }
  });
  afterAll(async () => {
    if (b !== a) await b?.close();
    await a?.close();
    await scratch?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("issues a UUID whose claims another process reads, the install's certificate and sealed OAuth secret included", async () => {
    const issuer = new TransactionStore(a.db);
    const id = await issuer.issue(claims);
    expect(id).toMatch(RFC_4122);
    expect(await new TransactionStore(b.db).read(id)).toEqual(claims);
    // Header values come back as sent; a UUID in capitals is the same id.
    expect(await new TransactionStore(b.db).read(` ${id.toUpperCase()} `)).toEqual(claims);

    const sealer = new PropertySealer(randomBytes(32));
    const install = {
      ...claims,
      fingerprint: "AB:CD:EF",
      oauth: {
        key: "cloudmail-connector",
        sealedSecret: sealer.sealText(claims.instanceId, "s3cret: never stored in the clear"),
      },
    };
    const installId = await issuer.issue(install);
    const read = await new TransactionStore(b.db).read(installId);
    expect({ ...read, oauth: { ...read!.oauth, sealedSecret: Buffer.from(read!.oauth!.sealedSecret) } }).toEqual(
      install,
    );
    expect(sealer.openText(claims.instanceId, read!.oauth!.sealedSecret)).toBe("s3cret: never stored in the clear");
    const [row] = rowsOf<{ text: string }>(
      await a.db.execute(sql`select t::text as text from transactions t where id = ${installId}`),
    );
    expect(row!.text).toContain("cloudmail-connector");
    expect(row!.text).not.toContain("s3cret");
    // Two calls about the same resource still get two ids.
    expect(await issuer.issue(claims)).not.toBe(id);
  });

  it("reads nothing from an id it did not issue, or that is not a UUID (no statement with what cannot be one)", async () => {
    const store = new TransactionStore(b.db);
    const old = `${Buffer.from(JSON.stringify({ r: claims.resourceId, t: claims.typeId, i: claims.instanceId, x: Date.now() + 60_000 })).toString("base64url")}.c2lnbmF0dXJl`;
    for (const other of [
      undefined,
      "",
      "   ",
      randomUUID(),
      "made-up.transaction",
      old,
      "'; drop table transactions; --",
      `${randomUUID()}x`,
    ]) {
      expect(await store.read(other)).toBeUndefined();
    }
  });

  it("forgets a transaction when it expires, in the process that issued it and in every other, and prunes only expired rows", async () => {
    const shortLived = new TransactionStore(a.db, 300);
    const id = await shortLived.issue(claims);
    const reader = new TransactionStore(b.db, 300);
    expect(await reader.read(id)).toEqual(claims);
    const lasting = await new TransactionStore(a.db).issue(claims);
    await new Promise((r) => setTimeout(r, 450));
    // Both remembered it; neither honours it past its validity.
    expect(await shortLived.read(id)).toBeUndefined();
    expect(await reader.read(id)).toBeUndefined();
    expect(await new TransactionStore(b.db).read(id)).toBeUndefined();
    expect(await new TransactionStore(b.db).prune()).toBeGreaterThanOrEqual(1);
    const left = rowsOf<{ id: string }>(
      await a.db.execute(sql`select id::text as id from transactions where id in (${id}, ${lasting})`),
    ).map((r) => r.id);
    expect(left).toEqual([lasting]);
    expect(await new TransactionStore(b.db).read(lasting)).toEqual(claims);
  });

  it("remembers what it read until it expires: a sub-request that reaches the same process costs no statement", async () => {
    const store = new TransactionStore(b.db);
    const id = await new TransactionStore(a.db).issue(claims);
    expect(await store.read(id)).toEqual(claims);
    await a.db.execute(sql`delete from transactions where id = ${id}`);
    expect(await store.read(id)).toEqual(claims);
    expect(await new TransactionStore(b.db).read(id)).toBeUndefined();
  });
});
