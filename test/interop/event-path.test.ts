/**
 * Controller -> endpoint paths as real connectors route them (docs/platform-forms.md §4 Q1, Q4),
 * against a strictly routed endpoint in plain Python (test/interop/python/strict_endpoint.py):
 * - provisioning is `POST <endpoint>/<service>`, no trailing slash (a FastAPI route answers
 *   `/<service>/` with a 307 the controller does not follow);
 * - a notification goes to the handler operation's path on the subscriber,
 *   `POST <endpoint>/<service>/<subscriber id><operation path>`, which is where FallBall and the
 *   Connect extension serve their handlers;
 * - an endpoint that serves only the form `/<service>/events/<subscriber>/<handler>` still gets it
 *   (docs/aps/events.md).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureControllerTls } from "../../runtime/common/certificate-authority.ts";
import { databases, startControllerUnderTest, type ControllerUnderTest } from "../e2e/controller-harness.ts";
import { portWrittenTo } from "../helpers/port-file.ts";
import { until } from "../helpers/until.ts";

const T = "http://cloudmail.example.com/types";
const E = "http://aps-standard.org/core/events";
const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";
const SUBSCRIPTION = "http://aps-standard.org/types/core/subscription/1.0";

interface Seen {
  method: string;
  path: string;
  status: number;
  body: { event?: string; serial?: number; subscription?: string; source?: { id: string; type: string } } | null;
}

describe.each(databases)("controller -> endpoint paths of real connectors on %s", (kind) => {
  let t: ControllerUnderTest;
  let dir: string;
  let python: ChildProcess;
  let endpointUrl = "";
  let endpointCa = "";

  const seen = (): Promise<Seen[]> =>
    new Promise((resolve, reject) => {
      request(`${endpointUrl}/seen`, { ca: endpointCa }, (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve(JSON.parse(text) as Seen[]));
      })
        .on("error", reject)
        .end();
    });
  const admin = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { token: t.adminToken, ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    t = await startControllerUnderTest(kind, ["types/examples/cloudmail"], {
      endpointTimeoutMs: 5000,
      eventDelivery: { retryBaseSeconds: 0.2, maxAttempts: 3, idleMs: 50 },
    });
    dir = mkdtempSync(join(tmpdir(), "aps-event-path-"));
    const tls = await ensureControllerTls(join(dir, "tls"), ["127.0.0.1"]);
    endpointCa = tls.ca.cert;
    writeFileSync(join(dir, "server.crt"), tls.server.cert);
    writeFileSync(join(dir, "server.key"), tls.server.key);
    const portFile = join(dir, "port");
    python = spawn(
      "python3",
      [
        join(import.meta.dirname, "python", "strict_endpoint.py"),
        portFile,
        join(dir, "server.crt"),
        join(dir, "server.key"),
      ],
      { stdio: "inherit" },
    );
    endpointUrl = `https://127.0.0.1:${await portWrittenTo(portFile)}`;
  }, 60_000);
  afterAll(async () => {
    python?.kill();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  let tenant = "";
  let mailbox = "";

  it("installs and provisions with POST <endpoint>/<service>, which a strict (FastAPI-style) route takes", async () => {
    const packageId = (await admin("GET", "/aps/2/packages")).json.find(
      (p: { name: string }) => p.name.toLowerCase() === "cloudmail",
    ).id;
    const installed = await admin("POST", "/aps/2/instances", {
      package: packageId,
      endpoint: endpointUrl,
      endpointCa,
      settings: { apiEndpoint: "https://api.example", apiKey: "key-0123456789abcdef", apiSecret: "secret-0123456789" },
    });
    expect(installed.status, installed.text).toBe(201);
    const account = (
      await admin("POST", "/aps/2/resources", { aps: { type: ACCOUNT }, companyName: "Customer", addressPostal: {} })
    ).json.aps.id;
    const sub = (await admin("POST", "/aps/2/resources", { aps: { type: SUBSCRIPTION } })).json.aps.id;
    const tr = await admin("POST", "/aps/2/resources", {
      aps: { type: `${T}/tenant/1.0` },
      account: { aps: { id: account } },
      subscription: { aps: { id: sub } },
    });
    expect(tr.status, tr.text).toBe(201);
    tenant = tr.json.aps.id;
    const calls = await seen();
    expect(calls.map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual(["POST /cloudmail 200", "POST /tenants 200"]);
  });

  it("delivers a notification to <service>/<subscriber id><operation path>, where FallBall and Connect serve handlers", async () => {
    const s = await admin("POST", `/aps/2/resources/${tenant}/aps/subscriptions`, {
      event: `${E}/changed`,
      source: { type: `${T}/mailbox/1.0` },
      handler: "onMailboxChanged",
    });
    expect(s.status, s.text).toBe(200);
    const domain = await admin("POST", "/aps/2/resources", {
      aps: { type: `${T}/domain/1.0` },
      name: "example.com",
      tenant: { aps: { id: tenant } },
    });
    expect(domain.status, domain.text).toBe(201);
    const m = await admin("POST", "/aps/2/resources", {
      aps: { type: `${T}/mailbox/1.0` },
      localPart: "ann",
      password: "0123456789",
      tenant: { aps: { id: tenant } },
      domain: { aps: { id: domain.json.aps.id } },
    });
    expect(m.status, m.text).toBe(201);
    mailbox = m.json.aps.id;
    expect((await admin("PUT", `/aps/2/resources/${mailbox}`, { quota: 2048 })).status).toBe(200);
    const path = `/tenants/${tenant}/onMailboxChanged`;
    await until("the notification at the operation path", async () => (await seen()).some((c) => c.path === path));
    const delivered = (await seen()).filter((c) => c.path === path);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.status).toBe(200);
    // The Connect extension ignores a notification without truthy event, time, serial, subscription and source (platform-forms §2.3).
    expect(delivered[0]!.body).toMatchObject({
      event: `${E}/changed`,
      subscription: s.json.id,
      source: { id: mailbox, type: `${T}/mailbox/1.0` },
    });
    expect(delivered[0]!.body!.serial).toBeGreaterThan(0);
    expect((await seen()).some((c) => c.path.includes("/events/"))).toBe(false);
    await until("nothing pending", async () => (await admin("GET", "/aps/2/events/pending")).json.length === 0);
  });

  it("falls back to /<service>/events/<subscriber>/<handler> where nothing is routed at the operation path", async () => {
    const s = await admin("POST", `/aps/2/resources/${tenant}/aps/subscriptions`, {
      event: `${E}/available`,
      source: { type: `${T}/domain/1.0` },
      handler: "onDomainLinked",
    });
    expect(s.status, s.text).toBe(200);
    const domain = await admin("POST", "/aps/2/resources", {
      aps: { type: `${T}/domain/1.0` },
      name: "example.org",
      tenant: { aps: { id: tenant } },
    });
    expect(domain.status, domain.text).toBe(201);
    const spec = `/tenants/events/${tenant}/onDomainLinked`;
    await until("the notification in the events form", async () => (await seen()).some((c) => c.path === spec));
    const calls = (await seen()).filter((c) => c.path === spec || c.path === `/tenants/${tenant}/onDomainLinked`);
    expect(calls.map((c) => `${c.path} ${c.status}`)).toEqual([`/tenants/${tenant}/onDomainLinked 404`, `${spec} 200`]);
    expect(calls[1]!.body).toMatchObject({
      event: `${E}/available`,
      subscription: s.json.id,
      source: { id: domain.json.aps.id },
    });
    await until("nothing pending", async () => (await admin("GET", "/aps/2/events/pending")).json.length === 0);
    expect((await admin("GET", "/aps/2/events/dead")).json).toEqual([]);
  });
});
