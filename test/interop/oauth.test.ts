/**
 * Issue 16 item 6: OAuth 1.0a application authentication both ways, against an endpoint in plain
 * Python (test/interop/python/oauth_endpoint.py: http.server, no aps-gen code; signatures made and
 * checked by oauth1.py, written from RFC 5849 with the standard library). The endpoint refuses every
 * controller call whose signature, key, nonce form, timestamp or X-Forwarded-* URL is not as
 * FallBall's and the Connect extension's oauthlib validators want it, and calls the controller
 * back signed with its key as they do: the controller takes good calls and answers 401 to a bad
 * signature, an unknown key, a stale timestamp and a replayed nonce (a client's resend after a
 * 400, platform-forms Q12).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databases, startControllerUnderTest, type ControllerUnderTest } from "../e2e/controller-harness.ts";
import { portWrittenTo } from "../helpers/port-file.ts";

const KEY = "cloudmail-connector";
const SECRET = "s3cret: not to be logged";

function get(url: string): Promise<any> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve(JSON.parse(text)));
    })
      .on("error", reject)
      .end();
  });
}

describe.each(databases)("OAuth 1.0a between the controller and a Python endpoint on %s", (kind) => {
  let t: ControllerUnderTest;
  let dir: string;
  let python: ChildProcess;
  let endpoint: string;
  let packageId: string;
  let instance: { id: string; rootResource: string };
  const settings = {
    apiEndpoint: "https://api.example",
    apiKey: "key-0123456789abcdef",
    apiSecret: "secret-0123456789",
  };
  const probe = (path: string, mode = "good", method = "GET") =>
    get(`${endpoint}/probe?${new URLSearchParams({ path, mode, method })}`);

  beforeAll(async () => {
    t = await startControllerUnderTest(kind, ["types/examples/cloudmail"], { endpointTimeoutMs: 5000 });
    dir = mkdtempSync(join(tmpdir(), "aps-oauth-"));
    writeFileSync(join(dir, "controller-ca.crt"), t.controller.caCert);
    const portFile = join(dir, "port");
    python = spawn(
      "python3",
      [join(import.meta.dirname, "python", "oauth_endpoint.py"), portFile, KEY, SECRET, join(dir, "controller-ca.crt")],
      { stdio: "inherit" },
    );
    endpoint = `http://127.0.0.1:${await portWrittenTo(portFile)}`;
    packageId = (await t.call("GET", "/aps/2/packages", { token: t.adminToken })).json.find(
      (p: { name: string }) => p.name.toLowerCase() === "cloudmail",
    ).id;
  }, 60_000);
  afterAll(async () => {
    python?.kill();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("installs an instance with auth.oauth: the install call is signed as the endpoint's oauthlib-style check wants it", async () => {
    const installed = await t.call("POST", "/aps/2/instances", {
      token: t.adminToken,
      body: { package: packageId, endpoint, auth: { oauth: { key: KEY, secret: SECRET } }, settings },
    });
    expect(installed.status, installed.text).toBe(201);
    expect(installed.json.auth).toEqual({ oauth: { key: KEY } });
    expect(installed.text).not.toContain(SECRET);
    instance = installed.json;
    const seen = await get(`${endpoint}/seen`);
    expect(seen.refused).toEqual([]);
    expect(seen.taken).toEqual([expect.objectContaining({ method: "POST" })]);
  }, 60_000);

  it("refuses a key already in use (409) and an install whose secret the endpoint does not share (its 401, nothing stored)", async () => {
    const again = await t.call("POST", "/aps/2/instances", {
      token: t.adminToken,
      body: { package: packageId, endpoint, auth: { oauth: { key: KEY, secret: "x" } }, settings },
    });
    expect(again.status).toBe(409);
    const wrong = await t.call("POST", "/aps/2/instances", {
      token: t.adminToken,
      body: { package: packageId, endpoint, auth: { oauth: { key: "another-key", secret: SECRET } }, settings },
    });
    expect(wrong.status).toBe(401);
    expect((await get(`${endpoint}/seen`)).refused).toEqual([expect.objectContaining({ why: "unknown consumer key" })]);
    expect((await t.call("GET", "/aps/2/instances", { token: t.adminToken })).json).toHaveLength(1);
    const plain = await t.call("POST", "/aps/2/instances", {
      token: t.adminToken,
      body: {
        package: packageId,
        endpoint: "http://192.0.2.1:5000",
        auth: { oauth: { key: "k2", secret: "s2" } },
        settings,
      },
    });
    expect(plain.status).toBe(400);
    expect(plain.json.message).toMatch(/plain http:\/\/ only on this machine/);
  }, 60_000);

  it("takes the endpoint's signed calls: its resources by RQL (percent-encoded, trailing slash) and /aps/2/application", async () => {
    const root = (await t.call("GET", `/aps/2/resources/${instance.rootResource}`, { token: t.adminToken })).json;
    const list = await probe(`/aps/2/resources/?implementing(${encodeURIComponent(root.aps.type)})`);
    expect(list.statuses, JSON.stringify(list.body)).toEqual([200]);
    expect(list.body.map((r: { aps: { id: string } }) => r.aps.id)).toEqual([instance.rootResource]);
    const application = await probe("/aps/2/application");
    expect(application.statuses, JSON.stringify(application.body)).toEqual([200]);
  }, 60_000);

  it("answers 401 to a bad signature, an unknown key, a stale timestamp and the same signed request sent twice", async () => {
    const path = `/aps/2/resources/${instance.rootResource}`;
    const bad = await probe(path, "badsig");
    expect(bad.statuses).toEqual([401]);
    expect(bad.body).toMatch(/signature does not match/);
    expect((await probe(path, "unknownkey")).statuses).toEqual([401]);
    const stale = await probe(path, "stale");
    expect(stale.statuses).toEqual([401]);
    expect(stale.body).toMatch(/oauth_timestamp/);
    const replay = await probe(path, "replay");
    expect(replay.statuses).toEqual([200, 401]);
    expect(replay.body).toMatch(/already used/);
  }, 60_000);

  it("keeps the secret sealed at rest and out of the log", async () => {
    // Last: on PGlite, t.sql restarts the controller (on another port than the endpoint knows).
    expect(readFileSync(t.logFile, "utf8")).not.toContain("s3cret");
    const rows = await t.sql(
      `select oauth_key, encode(oauth_secret, 'escape') as secret from instances where id = '${instance.id}'`,
    );
    expect(rows[0]!.oauth_key).toBe(KEY);
    expect(String(rows[0]!.secret)).not.toContain("s3cret");
  }, 60_000);
});
