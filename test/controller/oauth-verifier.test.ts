/**
 * OAuth 1.0a application authentication (issue 16 item 6): requests signed by an independent
 * signer (test/interop/python/oauth1.py: Python standard library, written from RFC 5849; it
 * matches oauthlib 3.2.2, which the Connect extension pins) are taken once, and a bad signature,
 * an unknown key, a stale timestamp, a changed query or a replayed nonce are 401. Nonces live in
 * the database (migration 0009), so a second verifier on it (another controller process) refuses
 * a replay too. PGlite and PostgreSQL.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OAuthNonces } from "../../runtime/controller/auth/oauth-nonces.ts";
import { OAuthVerifier, type OAuthInstances } from "../../runtime/controller/auth/oauth-verifier.ts";
import { ControllerError } from "../../runtime/controller/support/errors.ts";
import { openDatabase, type Database } from "../../runtime/controller/store/open-database.ts";
import { pgliteTemplate } from "../helpers/pglite-template.ts";
import { scratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";

const databases: readonly ("pglite" | "postgres")[] = process.env.DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];
const SIGNER = join(import.meta.dirname, "..", "interop", "python", "oauth1.py");
const INSTANCE = "6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5";
const KEY = "connector-key";
const SECRET = "connector secret & more";

interface SignRequest {
  readonly method: string;
  readonly url: string;
  readonly key?: string;
  readonly secret?: string;
  readonly timestamp?: number;
}

/** Authorization headers from the Python signer, all in one interpreter start. */
function sign(...requests: SignRequest[]): string[] {
  const input = JSON.stringify(
    requests.map((r) => [r.method, r.url, r.key ?? KEY, r.secret ?? SECRET, null, r.timestamp ?? null]),
  );
  return JSON.parse(execFileSync("python3", [SIGNER, "--batch"], { input, encoding: "utf8" })) as string[];
}

const instances: OAuthInstances = {
  byOAuthKey: async (key) => (key === KEY ? { instanceId: INSTANCE, secret: SECRET } : undefined),
};

function appOf(verifier: OAuthVerifier): Hono {
  const app = new Hono({ strict: false });
  app.all("*", async (c) => c.json({ instance: (await verifier.verify(c)) ?? null }));
  app.onError((error, c) =>
    error instanceof ControllerError
      ? c.json({ message: error.message }, error.status)
      : c.json({ message: String(error) }, 500),
  );
  return app;
}

describe.each(databases)("OAuth 1.0a verification on %s", (kind) => {
  const dir = mkdtempSync(join(tmpdir(), "aps-oauth-"));
  let scratch: ScratchDatabase | undefined;
  let database: Database;
  let app: Hono;
  let second: Hono;
  const call = async (target: Hono, url: string, headers: Record<string, string> = {}, method = "GET") => {
    const res = await target.request(url, { method, headers });
    return { status: res.status, json: (await res.json()) as { instance?: string | null; message?: string } };
  };

  beforeAll(async () => {
    scratch = kind === "postgres" ? await scratchDatabase("aps_oauth") : undefined;
    database = await openDatabase({
      dataDir: dir,
      ...(scratch ? { url: scratch.url } : { pgliteTemplate: await pgliteTemplate() }),
    });
    app = appOf(new OAuthVerifier(instances, new OAuthNonces(database.db)));
    second = appOf(new OAuthVerifier(instances, new OAuthNonces(database.db)));
  }, 60_000);
  afterAll(async () => {
    await database.close();
    await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("takes no header as no credentials", async () => {
    expect(await call(app, "https://ctl.test/aps/2/resources")).toEqual({ status: 200, json: { instance: null } });
    expect(await call(app, "https://ctl.test/aps/2/resources", { authorization: "Bearer x" })).toEqual({
      status: 200,
      json: { instance: null },
    });
  });

  it("finds the instance of a signed request (percent-encoded RQL, trailing slash) and refuses it the second time, in any process", async () => {
    const url =
      "https://ctl.test:8443/aps/2/resources/?implementing(http%3A%2F%2Fwww.parallels.com%2Fpa%2Fnotification-manager%2F1),eq(aps.id,x)";
    const [authorization = "", fresh = ""] = sign({ method: "GET", url }, { method: "GET", url });
    expect(await call(app, url, { authorization })).toEqual({ status: 200, json: { instance: INSTANCE } });
    const again = await call(app, url, { authorization });
    expect(again.status).toBe(401);
    expect(again.json.message).toMatch(/oauth_nonce .* was already used/);
    const elsewhere = await call(second, url, { authorization });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.json.message).toMatch(/already used/);
    // A fresh nonce for the same request is fine, also in the other process.
    expect((await call(second, url, { authorization: fresh })).json.instance).toBe(INSTANCE);
  });

  it("refuses a bad signature, an unknown key, a stale timestamp and a changed query, each with its reason", async () => {
    const url = "https://ctl.test/aps/2/resources?limit(0,10)";
    const now = Math.floor(Date.now() / 1000);
    const [wrongSecret, otherKey, old, ahead, good1, good2] = sign(
      { method: "GET", url, secret: "not the secret" },
      { method: "GET", url, key: "someone-else" },
      { method: "GET", url, timestamp: now - 3600 },
      { method: "GET", url, timestamp: now + 3600 },
      { method: "GET", url },
      { method: "GET", url },
    );
    const bad = await call(app, url, { authorization: wrongSecret! });
    expect(bad).toMatchObject({ status: 401, json: { message: expect.stringMatching(/signature does not match/) } });
    const unknown = await call(app, url, { authorization: otherKey! });
    expect(unknown).toMatchObject({
      status: 401,
      json: { message: expect.stringMatching(/No application instance has the OAuth consumer key "someone-else"/) },
    });
    const stale = await call(app, url, { authorization: old! });
    expect(stale).toMatchObject({
      status: 401,
      json: { message: expect.stringMatching(/oauth_timestamp .* more than 300 s/) },
    });
    const future = await call(app, url, { authorization: ahead! });
    expect(future.status).toBe(401);
    const changed = await call(app, "https://ctl.test/aps/2/resources?limit(0,1000)", { authorization: good1! });
    expect(changed).toMatchObject({
      status: 401,
      json: { message: expect.stringMatching(/signature does not match/) },
    });
    const otherMethod = await call(app, url, { authorization: good2! }, "DELETE");
    expect(otherMethod.status).toBe(401);
    const garbled = await call(app, url, { authorization: "OAuth oauth_consumer_key=unquoted" });
    expect(garbled).toMatchObject({ status: 401, json: { message: expect.stringMatching(/cannot be read/) } });
    const partial = await call(app, url, {
      authorization: 'OAuth oauth_consumer_key="connector-key", oauth_signature="x"',
    });
    expect(partial).toMatchObject({
      status: 401,
      json: { message: expect.stringMatching(/has no oauth_signature_method/) },
    });
  });

  it("accepts the URL a proxy in front of the controller names in X-Forwarded-Proto/-Host", async () => {
    const signedFor = "https://apsc.example.com/aps/2/application";
    const [viaProxy, direct] = sign({ method: "GET", url: signedFor }, { method: "GET", url: signedFor });
    const res = await call(app, "https://127.0.0.1:9443/aps/2/application", {
      authorization: viaProxy!,
      "x-forwarded-proto": "https",
      "x-forwarded-host": "apsc.example.com",
    });
    expect(res).toEqual({ status: 200, json: { instance: INSTANCE } });
    const without = await call(app, "https://127.0.0.1:9443/aps/2/application", { authorization: direct! });
    expect(without.status).toBe(401);
  });

  it("forgets a nonce once its timestamp is no longer accepted", async () => {
    let now = Date.now();
    const nonces = new OAuthNonces(database.db, () => now);
    expect(await nonces.take(KEY, "expiring-nonce-0001", now + 1000)).toBe(true);
    expect(await nonces.take(KEY, "expiring-nonce-0001", now + 1000)).toBe(false);
    expect(await nonces.take("another-key", "expiring-nonce-0001", now + 1000)).toBe(true);
    now += 120_000; // past its expiry and the purge interval
    expect(await nonces.take(KEY, "expiring-nonce-0001", now + 1000)).toBe(true);
    // The purge took both expired rows; the nonce taken again is the one row left.
    const rows = await database.db.execute(
      sql`select count(*)::int as n from oauth_nonces where nonce = 'expiring-nonce-0001'`,
    );
    expect(JSON.stringify(rows)).toMatch(/"n":1\b/);
  });
});
