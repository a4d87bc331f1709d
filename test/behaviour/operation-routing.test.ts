/**
 * Issue 16 item 11: custom operations are found by a router compiled per type, which handles
 * trailing slashes, repeated slashes and percent-encoding once, and keeps 404 (no such path)
 * apart from 405 (the path exists for another verb). Also platform-forms row 6: a trailing slash
 * on a resource is the resource, and apsconnect-cli's `//aps/2/...` (hub.py:197) reaches the same
 * route. What reaches the endpoint is the operation's canonical path, which strict routers
 * (FastAPI, Hono) match.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HttpBindings } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cloudmailServices } from "../../generated/connector/examples/cloudmail/index.gen.ts";
import { createConnectorApp } from "../../runtime/connector/app.ts";
import { fileCredentialStore } from "../../runtime/connector/credentials.ts";
import { ConnectorError } from "../../runtime/connector/replies.ts";
import { startConnector, type RunningConnector } from "../../runtime/connector/serve.ts";
import { ensureControllerTls } from "../../runtime/common/certificate-authority.ts";
import { databases, startBehaviourController, type BehaviourController } from "./harness.ts";

const T = "http://cloudmail.example.com/types";
const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";
const SUBSCRIPTION = "http://aps-standard.org/types/core/subscription/1.0";

describe.each(databases)("custom operations routed by a compiled router on %s", (kind) => {
  let t: BehaviourController;
  let connector: RunningConnector;
  const dir = mkdtempSync(join(tmpdir(), "aps-op-routing-"));
  /** Paths as they reached the endpoint. */
  const seen: string[] = [];
  let tenant = "";
  let mailbox = "";
  const notUsed = (): never => {
    throw new ConnectorError(501, "not used in this test");
  };
  const services = cloudmailServices({
    cloudmail: { provision: () => ({ imapHost: "imap.example.net" }), testConnection: notUsed },
    tenants: {
      provision: () => ({ organizationId: "org-1" }),
      usage: (_ctx, params) => ({ period: params.period, trafficIn: params.top ?? 0 }),
      exportMailboxes: notUsed,
      importMailboxes: notUsed,
      onSubscriptionLimitsChanged: notUsed,
      onDomainLinked: notUsed,
      onMailboxChanged: notUsed,
    },
    domains: { provision: () => ({ verified: true }), verifyDns: notUsed, requiredRecords: notUsed },
    mailboxes: {
      provision: (_ctx, r) => ({ address: `${r.localPart}@example.com`, used: 0 }),
      configure: () => ({}),
      unprovision: () => undefined,
      disable: () => undefined,
      enable: () => undefined,
      changePassword: () => true,
      checkAvailability: (_ctx, params) => ({ available: true, suggestions: [`${params.query.localPart}1`] }),
      storageUsage: notUsed,
      purgeArchive: notUsed,
    },
  });

  beforeAll(async () => {
    t = await startBehaviourController(kind, ["types/examples/cloudmail"], { endpointTimeoutMs: 3000 });
    const tls = await ensureControllerTls(join(dir, "endpoint-tls"), ["127.0.0.1"]);
    const recorded = new Hono<{ Bindings: HttpBindings }>();
    recorded.use("*", async (c, next) => {
      seen.push(`${c.req.method} ${new URL(c.req.url).pathname}`);
      await next();
    });
    recorded.route("/", createConnectorApp({ services, credentials: fileCredentialStore(join(dir, "credentials")) }));
    connector = await startConnector(recorded, tls.server);
    const pkg = (await admin("GET", "/aps/2/packages")).json.find((p: { name: string }) => p.name === "CloudMail").id;
    const installed = await admin("POST", "/aps/2/instances", { package: pkg, endpoint: connector.url, endpointCa: tls.ca.cert, settings: { apiEndpoint: "https://api.example", apiKey: "key-0123456789abcdef", apiSecret: "secret-0123456789" } });
    expect(installed.status, installed.text).toBe(201);
    const account = (await admin("POST", "/aps/2/resources", { aps: { type: ACCOUNT }, companyName: "Customer", addressPostal: {} })).json.aps.id;
    const sub = (await admin("POST", "/aps/2/resources", { aps: { type: SUBSCRIPTION } })).json.aps.id;
    const tr = await admin("POST", "/aps/2/resources", { aps: { type: `${T}/tenant/1.0` }, account: { aps: { id: account } }, subscription: { aps: { id: sub } } });
    expect(tr.status, tr.text).toBe(201);
    tenant = tr.json.aps.id;
    const domain = (await admin("POST", "/aps/2/resources", { aps: { type: `${T}/domain/1.0` }, name: "example.com", tenant: { aps: { id: tenant } } })).json.aps.id;
    const m = await admin("POST", "/aps/2/resources", { aps: { type: `${T}/mailbox/1.0` }, localPart: "ann", password: "0123456789", tenant: { aps: { id: tenant } }, domain: { aps: { id: domain } } });
    expect(m.status, m.text).toBe(201);
    mailbox = m.json.aps.id;
  }, 60_000);
  afterAll(async () => {
    await connector?.close();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const admin = (method: string, path: string, body?: unknown) => t.call(method, path, { token: t.adminToken, ...(body === undefined ? {} : { body }) });

  it("GET /aps/2/resources/{id}/ is the resource, not a custom operation '/' (platform-forms row 6)", async () => {
    const r = await admin("GET", `/aps/2/resources/${tenant}/`);
    expect(r.status, r.text).toBe(200);
    expect(r.json.aps).toMatchObject({ id: tenant, type: `${T}/tenant/1.0` });
  });

  it("takes apsconnect-cli's double slash (hub.py:197) and repeated slashes inside a path", async () => {
    // An absolute URL keeps the leading "//" that a relative one would read as a host.
    const r = await admin("GET", `${t.controller.url}//aps/2/resources/${tenant}`);
    expect(r.status, r.text).toBe(200);
    expect(r.json.aps.id).toBe(tenant);
    const usage = await admin("GET", `${t.controller.url}//aps/2/resources/${tenant}//usage//2026-11?top=2`);
    expect(usage.status, usage.text).toBe(200);
    expect(usage.json).toEqual({ period: "2026-11", trafficIn: 2 });
    expect(seen.at(-1)).toBe(`GET /tenants/${tenant}/usage/2026-11`);
  });

  it("takes a trailing slash on a custom operation and forwards the operation's own path", async () => {
    const usage = await admin("GET", `/aps/2/resources/${tenant}/usage/2026-11/?top=3`);
    expect(usage.status, usage.text).toBe(200);
    expect(usage.json).toEqual({ period: "2026-11", trafficIn: 3 });
    expect(seen.at(-1)).toBe(`GET /tenants/${tenant}/usage/2026-11`);
    const pw = await admin("POST", `/aps/2/resources/${mailbox}/changePassword/`, { newPassword: "abcdefghijk" });
    expect(pw.status, pw.text).toBe(200);
    expect(seen.at(-1)).toBe(`POST /mailboxes/${mailbox}/changePassword`);
    const encodedType = encodeURIComponent(`${T}/mailbox/1.0`);
    const available = await admin("POST", `/aps/2/static/${encodedType}/checkAvailability/`, { localPart: "bob", domain: "example.com" });
    expect(available.status, available.text).toBe(200);
    expect(available.json.suggestions).toEqual(["bob1"]);
    expect(seen.at(-1)).toBe("POST /mailboxes/checkAvailability");
  });

  it("decodes percent-encoding once: parameters and literal segments; a malformed escape is a 400", async () => {
    const dash = await admin("GET", `/aps/2/resources/${tenant}/usage/2026%2D11`);
    expect(dash.json).toEqual({ period: "2026-11", trafficIn: 0 });
    // An escaped "/" stays inside the parameter; it is sent on escaped again.
    const slash = await admin("GET", `/aps/2/resources/${tenant}/usage/2026%2F11`);
    expect(slash.status, slash.text).toBe(200);
    expect(slash.json.period).toBe("2026/11");
    expect(seen.at(-1)).toBe(`GET /tenants/${tenant}/usage/2026%2F11`);
    // %25 is a "%", decoded once only.
    const percent = await admin("GET", `/aps/2/resources/${tenant}/usage/100%2541`);
    expect(percent.json.period).toBe("100%41");
    const accent = await admin("GET", `/aps/2/resources/${tenant}/usage/caf%C3%A9`);
    expect(accent.json.period).toBe("café");
    // A literal segment written with escapes is the same operation.
    const literal = await admin("GET", `/aps/2/resources/${tenant}/us%61ge/2026-11`);
    expect(literal.status, literal.text).toBe(200);
    expect(seen.at(-1)).toBe(`GET /tenants/${tenant}/usage/2026-11`);
    const malformed = await admin("GET", `/aps/2/resources/${tenant}/usage/%E0%A4%A`);
    expect(malformed.status).toBe(400);
    expect(malformed.json.message).toMatch(/malformed %-escape/);
  });

  it("keeps 404 for a path no operation has and 405 for a known path with another verb, slash or not", async () => {
    const count = seen.length;
    for (const path of [`/aps/2/resources/${mailbox}/noSuchOperation`, `/aps/2/resources/${mailbox}/noSuchOperation/`, `/aps/2/resources/${tenant}/usage`, `/aps/2/resources/${tenant}/usage/2026/11`]) {
      const r = await admin("POST", path);
      expect(r.status, path).toBe(404);
      expect(r.json.message, path).toMatch(/has no operation POST \/.*; it has /);
    }
    for (const path of [`/aps/2/resources/${mailbox}/changePassword`, `/aps/2/resources/${mailbox}/changePassword/`, `${t.controller.url}//aps/2/resources/${mailbox}//changePassword`]) {
      const r = await admin("DELETE", path);
      expect(r.status, path).toBe(405);
      expect(r.json.message, path).toMatch(/Mailbox has no operation DELETE \/changePassword; it has .*POST \/changePassword/);
    }
    expect((await admin("GET", `/aps/2/resources/${tenant}/usage/2026-11/extra`)).status).toBe(404);
    expect((await admin("PUT", `/aps/2/static/${encodeURIComponent(`${T}/mailbox/1.0`)}/checkAvailability`)).status).toBe(405);
    expect((await admin("POST", `/aps/2/static/${encodeURIComponent(`${T}/mailbox/1.0`)}/nothing`)).status).toBe(404);
    expect(seen.length).toBe(count);
  });
});
