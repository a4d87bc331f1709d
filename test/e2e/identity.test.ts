import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import type { HttpReply } from "../helpers/https-client.ts";
import { until } from "../helpers/until.ts";
import { databases, startControllerUnderTest, type ControllerUnderTest } from "./controller-harness.ts";

/**
 * Issue 15, identity and roles: revoked accounts' tokens (items 4), deleting an account that
 * holds resources (5), the navigation tree (6), `aps/links` (7) and failed token verifications
 * (8), over HTTPS on each database; on PostgreSQL with a second controller process too.
 */
const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";
const RESELLER = "http://identity.example/types/reseller/1.0";
const USER = "http://aps-standard.org/types/core/user/1.0";
const NOTE = "http://notes.example/types/note/1.0";
const TOPIC = "http://notes.example/types/topic/1.0";
/** How long a revoked account's token may keep working: docs/controller.md promises "within about a second" (this allows 3 s). */
const REVOKED_WITHIN_MS = 3000;

describe.each(databases)("identity and roles on %s", (kind) => {
  let t: ControllerUnderTest;
  let mint: TokenService;

  beforeAll(async () => {
    t = await startControllerUnderTest(kind, ["test/fixtures/controller/notes", "test/fixtures/controller/identity"], {
      identity: {
        failedTokens: { burst: 5, perSecond: 1 },
        navigation: { maxBytes: 4096, maxDepth: 8, maxNodes: 200 },
      },
    });
    mint = new TokenService(loadKeys(t.dataDir).token);
  }, 60_000);
  afterAll(async () => t?.dispose());

  const account = async (token: string, name: string, type = ACCOUNT) => {
    const r = await t.call("POST", "/aps/2/resources", {
      token,
      body: { aps: { type }, companyName: name, addressPostal: {} },
    });
    expect(r.status, r.text).toBe(201);
    return r.json.aps.id as string;
  };
  /** Milliseconds until `token` is refused (401), polling as fast as a client would. */
  const refusedAfter = async (call: ControllerUnderTest["call"], token: string, started: number) => {
    await until(
      "the token to be refused",
      async () => (await call("GET", "/aps/2/resources", { token })).status === 401,
      10_000,
    );
    return Date.now() - started;
  };

  describe("item 4: a deleted or disabled account's tokens are refused within seconds", () => {
    it("refuses a deleted account's tokens, cached and new, on the process that deleted it", async () => {
      const id = await account(t.adminToken, "leaving");
      const token = await mint.mint({ accountId: id });
      // Warm every cache: the token verified, the account's path known.
      for (let i = 0; i < 3; i++) expect((await t.call("GET", "/aps/2/resources", { token })).status).toBe(200);
      const started = Date.now();
      expect((await t.call("DELETE", `/aps/2/resources/${id}`, { token: t.adminToken })).status).toBe(204);
      const ms = await refusedAfter(t.call, token, started);
      expect(ms).toBeLessThan(REVOKED_WITHIN_MS);
      const fresh = await t.call("GET", "/aps/2/resources", { token: await mint.mint({ accountId: id }) });
      expect(fresh.status).toBe(401);
      expect(fresh.json.message).toMatch(/does not exist/);
    });

    it("refuses a disabled account's tokens, and those of the accounts below it, until it is enabled again", async () => {
      const reseller = await account(t.adminToken, "reseller", RESELLER);
      const resellerToken = await mint.mint({ accountId: reseller });
      const customer = await account(resellerToken, "customer of the reseller");
      const customerToken = await mint.mint({ accountId: customer });
      for (const token of [resellerToken, customerToken])
        expect((await t.call("GET", "/aps/2/resources", { token })).status).toBe(200);
      const started = Date.now();
      const disabled = await t.call("PUT", `/aps/2/resources/${reseller}/disable`, { token: t.adminToken });
      expect(disabled.status, disabled.text).toBe(200);
      expect(await refusedAfter(t.call, resellerToken, started)).toBeLessThan(REVOKED_WITHIN_MS);
      expect(await refusedAfter(t.call, customerToken, started)).toBeLessThan(REVOKED_WITHIN_MS);
      const refused = await t.call("GET", "/aps/2/resources", { token: customerToken });
      expect(refused.json.message).toContain(`whose account ${reseller} is disabled`);
      expect((await t.call("PUT", `/aps/2/resources/${reseller}/enable`, { token: t.adminToken })).status).toBe(200);
      await until(
        "the enabled account's token to work again",
        async () => (await t.call("GET", "/aps/2/resources", { token: resellerToken })).status === 200,
        10_000,
      );
      expect((await t.call("GET", "/aps/2/resources", { token: customerToken })).status).toBe(200);
    });

    it.runIf(kind === "postgres")(
      "refuses them on a second controller process that had them cached, within seconds",
      async () => {
        const other = await t.second();
        try {
          const id = await account(t.adminToken, "leaving, seen by two");
          const token = await mint.mint({ accountId: id });
          for (let i = 0; i < 3; i++) expect((await other.call("GET", "/aps/2/resources", { token })).status).toBe(200);
          const started = Date.now();
          expect((await t.call("DELETE", `/aps/2/resources/${id}`, { token: t.adminToken })).status).toBe(204);
          expect(await refusedAfter(other.call, token, started)).toBeLessThan(REVOKED_WITHIN_MS);
          expect(
            (await other.call("GET", "/aps/2/resources", { token: await mint.mint({ accountId: id }) })).status,
          ).toBe(401);

          const reseller = await account(t.adminToken, "disabled, seen by two", RESELLER);
          const resellerToken = await mint.mint({ accountId: reseller });
          expect((await other.call("GET", "/aps/2/resources", { token: resellerToken })).status).toBe(200);
          const disabledAt = Date.now();
          expect((await t.call("PUT", `/aps/2/resources/${reseller}/disable`, { token: t.adminToken })).status).toBe(
            200,
          );
          expect(await refusedAfter(other.call, resellerToken, disabledAt)).toBeLessThan(REVOKED_WITHIN_MS);
        } finally {
          await other.close();
        }
      },
      60_000,
    );
  });

  describe("item 5: an account that holds resources is not deleted", () => {
    it("answers 409 naming what it holds (its resources, its accounts, what its collections link to), and deletes it once it holds nothing", async () => {
      const id = await account(t.adminToken, "holding");
      const token = await mint.mint({ accountId: id });
      const note = (await t.call("POST", "/aps/2/resources", { token, body: { aps: { type: NOTE }, title: "kept" } }))
        .json.aps.id as string;
      const refused = await t.call("DELETE", `/aps/2/resources/${id}`, { token: t.adminToken });
      expect(refused.status, refused.text).toBe(409);
      expect(refused.json.type).toBe("Conflict");
      expect(refused.json.message).toContain("holds 1 resource(s)");
      expect(refused.json.message).toContain(note);
      // Nothing was removed, and the account's token still works.
      expect((await t.call("GET", `/aps/2/resources/${note}`, { token })).status).toBe(200);
      expect((await t.call("GET", `/aps/2/resources/${id}`, { token: t.adminToken })).status).toBe(200);

      // An account below it counts too, and so does a user its "users" collection links to.
      const child = await account(token, "below");
      expect((await t.call("DELETE", `/aps/2/resources/${note}`, { token })).status).toBe(204);
      const childRefusal = await t.call("DELETE", `/aps/2/resources/${id}`, { token: t.adminToken });
      expect(childRefusal.status).toBe(409);
      expect(childRefusal.json.message).toContain(child);
      expect((await t.call("DELETE", `/aps/2/resources/${child}`, { token: t.adminToken })).status).toBe(204);
      const user = await t.call("POST", "/aps/2/resources", {
        token: t.adminToken,
        body: { aps: { type: USER }, login: "someone" },
      });
      expect(user.status, user.text).toBe(201);
      const userId = user.json.aps.id as string;
      await t.sql(`insert into links (source_id, relation, target_id) values ('${id}', 'users', '${userId}')`);
      const userRefusal = await t.call("DELETE", `/aps/2/resources/${id}`, { token: t.adminToken });
      expect(userRefusal.status).toBe(409);
      expect(userRefusal.json.message).toContain(userId);
      expect(userRefusal.json.message).toContain("users");

      await t.sql(`delete from links where source_id = '${id}' and target_id = '${userId}'`);
      expect((await t.call("DELETE", `/aps/2/resources/${id}`, { token: t.adminToken })).status).toBe(204);
      expect((await t.call("GET", `/aps/2/resources/${userId}`, { token: t.adminToken })).status).toBe(200);
    });
  });

  describe("item 6: only a provider administrator replaces the navigation tree, within bounds", () => {
    it("refuses customers and the anonymous token, and bounds bytes, depth and values", async () => {
      const customer = await mint.mint({ accountId: await account(t.adminToken, "navigator") });
      const anonymous = await mint.mint({});
      const tree = { id: "ccp", items: [{ id: "home" }] };
      for (const token of [customer, anonymous]) {
        const r = await t.call("POST", "/aps/2/navigation", { token, body: tree });
        expect(r.status, r.text).toBe(403);
        expect(r.json.type).toBe("Forbidden");
      }
      expect(
        (
          await t.call("POST", "/aps/2/navigation", {
            token: t.adminToken,
            rawBody: JSON.stringify({ x: "y".repeat(5000) }),
          })
        ).status,
      ).toBe(413);
      const deep = (
        await t.call("POST", "/aps/2/navigation", {
          token: t.adminToken,
          rawBody: `${'{"a":'.repeat(9)}1${"}".repeat(9)}`,
        })
      ).json;
      expect(deep.code).toBe(400);
      expect(deep.message).toMatch(/at most 8 levels/);
      expect(
        (
          await t.call("POST", "/aps/2/navigation", {
            token: t.adminToken,
            body: { items: Array.from({ length: 300 }, () => 1) },
          })
        ).status,
      ).toBe(413);
      expect((await t.call("POST", "/aps/2/navigation", { token: t.adminToken, body: [1] })).status).toBe(400);
    });

    it("replaces the one tree rather than adding trees", async () => {
      const first = await t.call("POST", "/aps/2/navigation", {
        token: t.adminToken,
        body: { id: "ccp", items: [{ id: "home" }] },
      });
      expect(first.status, first.text).toBe(201);
      const second = await t.call("POST", "/aps/2/navigation", {
        token: t.adminToken,
        body: { id: "ccp", items: [{ id: "settings" }] },
      });
      expect(second.status).toBe(201);
      expect(second.json.id).toBe(first.json.id);
      const rows = await t.sql("select body::text as body from navigation");
      expect(rows).toHaveLength(1);
      expect(String(rows[0]!.body)).toContain("settings");
    });
  });

  describe("item 7: aps/links shows only links to resources the caller may see", () => {
    it("does not list another customer's resources linked to a shared resource", async () => {
      const alice = await mint.mint({ accountId: await account(t.adminToken, "alice") });
      const bob = await mint.mint({ accountId: await account(t.adminToken, "bob") });
      const shared = (
        await t.call("POST", "/aps/2/resources", {
          token: t.adminToken,
          body: { aps: { type: TOPIC }, name: "shared root" },
        })
      ).json.aps.id as string;
      const aliceNote = (
        await t.call("POST", "/aps/2/resources", { token: alice, body: { aps: { type: NOTE }, title: "alice's" } })
      ).json.aps.id as string;
      const bobNote = (
        await t.call("POST", "/aps/2/resources", { token: bob, body: { aps: { type: NOTE }, title: "bob's" } })
      ).json.aps.id as string;
      // Linked in the database, as an application linking its root to every tenant would.
      await t.sql(
        `insert into links (source_id, relation, target_id) values ('${aliceNote}', 'topic', '${shared}'), ('${bobNote}', 'topic', '${shared}'), ('${shared}', 'notes', '${aliceNote}'), ('${shared}', 'notes', '${bobNote}')`,
      );
      const seen = await t.call("GET", `/aps/2/resources/${shared}/aps/links`, { token: alice });
      expect(seen.status, seen.text).toBe(200);
      const ids = (seen.json as { id: string }[]).map((l) => l.id);
      expect(ids).toContain(aliceNote);
      expect(ids).not.toContain(bobNote);
      expect(seen.json).toHaveLength(2);
      expect(seen.headers["content-range"]).toBe("items 0-1/2");
      // The provider sees every link.
      const all = await t.call("GET", `/aps/2/resources/${shared}/aps/links`, { token: t.adminToken });
      expect((all.json as { id: string }[]).filter((l) => l.id === bobNote)).toHaveLength(2);
    });
  });

  describe("item 8: failed token verifications are limited per source", () => {
    it("answers 429 with Retry-After past the burst, for that source only, and never for a token already verified", async () => {
      const good = await mint.mint({ accountId: await account(t.adminToken, "limited") });
      const from = "127.0.0.9";
      // Verified twice: a verification that an account revocation (of an earlier test here) lands
      // during is not remembered, by design (caller.ts), and the feed may deliver one just now.
      for (let i = 0; i < 2; i++)
        expect((await t.call("GET", "/aps/2/resources", { token: good, localAddress: from })).status).toBe(200);
      const statuses: number[] = [];
      let limited: HttpReply | undefined;
      for (let i = 0; i < 8; i++) {
        const r = await t.call("GET", "/aps/2/resources", { token: `${good}x${i}`, localAddress: from });
        statuses.push(r.status);
        if (r.status === 429) limited = r;
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
      expect(limited!.json).toMatchObject({ code: 429, type: "TooManyRequests", error: "TooManyRequests" });
      expect(Number(limited!.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      // The verified token of that source still works; other sources are not limited.
      expect((await t.call("GET", "/aps/2/resources", { token: good, localAddress: from })).status).toBe(200);
      expect((await t.call("GET", "/aps/2/resources", { token: `${good}x`, localAddress: "127.0.0.10" })).status).toBe(
        401,
      );
      expect((await t.call("GET", "/aps/2/resources", { token: t.adminToken })).status).toBe(200);
      // After Retry-After seconds the source may try again.
      await new Promise((r) => setTimeout(r, Number(limited!.headers["retry-after"]) * 1000));
      expect((await t.call("GET", "/aps/2/resources", { token: `${good}y`, localAddress: from })).status).toBe(401);
    });
  });
});
