import { X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HttpBindings } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cloudmailServices } from "../../generated/connector/examples/cloudmail/index.gen.ts";
import { createConnectorApp } from "../../runtime/connector/app.ts";
import type { ApsCallContext } from "../../runtime/connector/context.ts";
import { fileCredentialStore } from "../../runtime/connector/credentials.ts";
import { controllerClient } from "../../runtime/connector/controller-client.ts";
import { ConnectorError, RawReply } from "../../runtime/connector/replies.ts";
import { startConnector, type RunningConnector } from "../../runtime/connector/serve.ts";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { ensureControllerTls } from "../../runtime/common/certificate-authority.ts";
import { databases, startControllerUnderTest, type ControllerUnderTest } from "./controller-harness.ts";

const T = "http://cloudmail.example.com/types";
const SUBSCRIPTION = "http://aps-standard.org/types/core/subscription/1.0";

/** Everything the endpoint received, to check what the controller sent (and did not send). */
interface Seen {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

describe.each(databases)("applications: install, forwarding, mutual TLS on %s", (kind) => {
  let t: ControllerUnderTest;
  let connector: RunningConnector;
  let endpointCa: string;
  let connectorCert: { cert: string; key: string };
  const dir = mkdtempSync(join(tmpdir(), "aps-connector-"));
  const seen: Seen[] = [];
  const calls: { what: string; ctx: ApsCallContext; body?: unknown }[] = [];
  let instanceId = "";
  let packageId = "";
  let customer = "";
  let customerAccount = "";
  const customerUser = "6d1c1f0e-7a63-4f55-9a2f-3f9a1b2c4d5e";

  const record = (what: string) => (ctx: ApsCallContext, body?: unknown) => {
    calls.push({ what, ctx, body });
  };
  const notUsed = (): never => {
    throw new ConnectorError(501, "not used in this test");
  };
  const linkCalls: string[] = [];
  // The generated, type-checked handler interfaces of the cloudmail package, wired by generated code.
  const services = cloudmailServices({
    cloudmail: {
      provision: (ctx, r) => {
        record("install")(ctx, r);
        return { imapHost: "imap.example.net" };
      },
      testConnection: notUsed,
    },
    tenants: {
      provision: (ctx, r) => {
        record("tenant")(ctx, r);
        return { organizationId: "org-1" };
      },
      usage: (_ctx, params) => ({ period: params.period, trafficIn: params.top ?? 0 }),
      exportMailboxes: () => new RawReply("text/csv", "address,quota\na@example.com,5120\n"),
      importMailboxes: (_ctx, params) => ({
        created: new TextDecoder().decode(params.file).split("\n").filter(Boolean).length - 1,
        skipped: [],
      }),
      onSubscriptionLimitsChanged: notUsed,
      onDomainLinked: notUsed,
      onMailboxChanged: notUsed,
      // Link callbacks of the generated interface (docs/aps/relations.md section 6).
      links: {
        mailboxes: {
          linked: (ctx, other) => void linkCalls.push(`+${ctx.resourceId}/mailboxes/${other}`),
          unlinked: (ctx, other) => void linkCalls.push(`-${ctx.resourceId}/mailboxes/${other}`),
        },
      },
    },
    domains: {
      provision: (ctx, r) => {
        record("domain")(ctx, r);
        if (r.name === "fail.example") throw new ConnectorError(500, "the DNS provider refused the zone");
        if (r.name === "hang.example") return new Promise(() => {});
        return { verified: true };
      },
      verifyDns: notUsed,
      requiredRecords: notUsed,
    },
    mailboxes: {
      provision: (ctx, r) => {
        record("mailbox")(ctx, r);
        return { address: `${r.localPart}@example.com`, used: 0 };
      },
      configure: (ctx, changes) => {
        record("configure")(ctx, changes);
        return { used: 42 };
      },
      unprovision: (ctx) => void record("unprovision")(ctx),
      disable: (ctx) => void record("disable")(ctx),
      enable: (ctx) => void record("enable")(ctx),
      changePassword: (ctx, params) => {
        record("changePassword")(ctx, params.request);
        return true;
      },
      checkAvailability: (ctx, params) => ({
        available: params.query.localPart !== "ann" && !ctx.resourceId,
        suggestions: [`${params.query.localPart}1`],
      }),
      storageUsage: notUsed,
      purgeArchive: (_ctx, params) => ({ messages: params.olderThanDays, freed: 9223372036854775807n }),
    },
  });

  beforeAll(async () => {
    t = await startControllerUnderTest(kind, ["types/examples/cloudmail"], { endpointTimeoutMs: 1500 });
    const account = await t.call("POST", "/aps/2/resources", {
      token: t.adminToken,
      body: {
        aps: { type: "http://aps-standard.org/types/core/account/1.0" },
        companyName: "Customer",
        addressPostal: {},
      },
    });
    customerAccount = account.json.aps.id;
    customer = await new TokenService(loadKeys(t.dataDir).token).mint({
      accountId: customerAccount,
      userId: customerUser,
    });
    // The endpoint's own HTTPS identity, from a CA of its own (not the controller's).
    const endpointTls = await ensureControllerTls(join(dir, "endpoint-tls"), ["127.0.0.1"]);
    endpointCa = endpointTls.ca.cert;
    connectorCert = endpointTls.server;
    const app = createConnectorApp({ services, credentials: fileCredentialStore(join(dir, "credentials")) });
    // A recorder in front of the connector: what arrived at the endpoint, as it arrived.
    const recorded = new Hono<{ Bindings: HttpBindings }>();
    recorded.use("*", async (c, next) => {
      const body = c.req.method === "GET" || c.req.method === "DELETE" ? "" : await c.req.raw.clone().text();
      seen.push({
        method: c.req.method,
        path: new URL(c.req.url).pathname,
        headers: Object.fromEntries(c.req.raw.headers),
        body,
      });
      await next();
    });
    recorded.route("/", app);
    connector = await startConnector(recorded, endpointTls.server);
    packageId = (await t.call("GET", "/aps/2/packages", { token: t.adminToken })).json.find(
      (p: { name: string }) => p.name === "CloudMail",
    ).id;
  }, 60_000);
  afterAll(async () => {
    await connector?.close();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const admin = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { token: t.adminToken, ...(body === undefined ? {} : { body }) });
  const owner = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { token: customer, ...(body === undefined ? {} : { body }) });

  it("refuses to install at an endpoint that is down, and keeps nothing", async () => {
    const r = await admin("POST", "/aps/2/instances", {
      package: packageId,
      endpoint: "https://127.0.0.1:9",
      endpointCa,
      settings: { apiEndpoint: "https://api", apiKey: "key-0123456789abcdef", apiSecret: "secret-0123456789" },
    });
    expect(r.status).toBe(502);
    expect(r.json.message).toMatch(/cannot be reached/);
    expect((await admin("GET", "/aps/2/instances")).json).toEqual([]);
  });

  it("refuses an install the endpoint answered 200 with an error body (aps-node-runtime endpoint.js:506-513), and keeps nothing", async () => {
    const tls = await ensureControllerTls(join(dir, "error-endpoint"), ["127.0.0.1"]);
    const failing = new Hono<{ Bindings: HttpBindings }>();
    failing.post("*", (c) =>
      c.json({ code: 404, type: "Exception", message: "Instance not found and unable to extract keys" }, 200),
    );
    const endpoint = await startConnector(failing, tls.server);
    try {
      const r = await admin("POST", "/aps/2/instances", {
        package: packageId,
        endpoint: endpoint.url,
        endpointCa: tls.ca.cert,
        settings: { apiEndpoint: "https://api", apiKey: "key-0123456789abcdef", apiSecret: "secret-0123456789" },
      });
      expect(r.status, r.text).toBe(502);
      expect(r.json.message).toMatch(/not valid/);
      expect((await admin("GET", "/aps/2/instances")).json).toEqual([]);
    } finally {
      await endpoint.close();
    }
  });

  it("installs an instance: the endpoint gets its certificate and the controller's (client certificate, CA), handlers never see them", async () => {
    const r = await admin("POST", "/aps/2/instances", {
      package: packageId,
      endpoint: connector.url,
      endpointCa,
      settings: {
        apiEndpoint: "https://api.example",
        apiKey: "key-0123456789abcdef",
        apiSecret: "very-secret-0123456789",
      },
    });
    expect(r.status, r.text).toBe(201);
    instanceId = r.json.id;
    const install = seen.find((s) => s.path === "/cloudmail")!;
    expect(install.method).toBe("POST");
    // The client certificate the controller presents, then its CA (platform-forms Q3).
    expect(JSON.parse(install.body).aps.x509.controller).toMatch(
      /^-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----\n-----BEGIN CERTIFICATE-----/,
    );
    expect(JSON.parse(install.body).aps.x509.controller.endsWith(`${t.controller.caCert.trim()}\n`)).toBe(true);
    expect(JSON.parse(install.body).aps.x509.self).toMatch(
      /-----END CERTIFICATE-----\n-----BEGIN RSA PRIVATE KEY-----/,
    );
    expect(calls.find((c) => c.what === "install")!.body).not.toHaveProperty("aps.x509");
    expect(existsSync(join(dir, "credentials", instanceId, "instance.key"))).toBe(true);
    expect(readFileSync(join(dir, "credentials", instanceId, "apsc.crt"), "utf8")).toBe(
      JSON.parse(install.body).aps.x509.controller,
    );
    const root = await admin("GET", `/aps/2/resources/${r.json.rootResource}`);
    expect(root.json).toMatchObject({ apiKey: "key-0123456789abcdef", imapHost: "imap.example.net" });
    expect(root.text).not.toContain("very-secret-0123456789");
  });

  let tenant = "";
  let domain = "";
  let mailbox = "";

  it("forwards provision with the APS headers and never a token; stores what the application returns", async () => {
    const sub = await owner("POST", "/aps/2/resources", { aps: { type: SUBSCRIPTION }, name: "s" });
    const root = (await admin("GET", "/aps/2/instances")).json[0].rootResource;
    const account = JSON.parse(Buffer.from(customer.split(".")[1]!, "base64url").toString()).acc;
    // No "app" link is given: the controller links the root of the instance that serves the tenant.
    const tr = await owner("POST", "/aps/2/resources", {
      aps: { type: `${T}/tenant/1.0` },
      account: { aps: { id: account } },
      subscription: { aps: { id: sub.json.aps.id } },
    });
    expect(tr.status, tr.text).toBe(201);
    tenant = tr.json.aps.id;
    expect(tr.json.organizationId).toBe("org-1");
    expect(tr.json.app).toMatchObject({ aps: { link: "strong", id: root } });
    const sent = seen.find((s) => s.path === "/tenants")!;
    expect(sent.headers["aps-controller-uri"]).toBe(t.controller.url);
    expect(sent.headers["aps-instance-id"]).toBe(instanceId);
    // An identifier (a UUID): what the provisioning is about stays with the controller.
    expect(sent.headers["aps-transaction-id"]).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(sent.headers["aps-request-phase"]).toBe("sync");
    expect(sent.headers["aps-identity-id"]).toBe(customerUser);
    expect(JSON.parse(sent.body)).toMatchObject({
      aps: { type: `${T}/tenant/1.0`, id: tenant },
      app: { aps: { id: root } },
    });
    const d = await owner("POST", "/aps/2/resources", {
      aps: { type: `${T}/domain/1.0` },
      name: "example.com",
      tenant: { aps: { id: tenant } },
    });
    expect(d.status, d.text).toBe(201);
    domain = d.json.aps.id;
    const m = await owner("POST", "/aps/2/resources", {
      aps: { type: `${T}/mailbox/1.0` },
      localPart: "ann",
      password: "0123456789",
      tenant: { aps: { id: tenant } },
      domain: { aps: { id: domain } },
    });
    expect(m.status, m.text).toBe(201);
    mailbox = m.json.aps.id;
    expect(m.json).toMatchObject({ address: "ann@example.com", used: 0 });
    for (const s of seen) expect(JSON.stringify(s.headers).toLowerCase()).not.toContain("aps-token");
    for (const s of seen) expect(s.body).not.toContain(customer);
  });

  it("passes an application's error back with its status and stores nothing", async () => {
    const before = (await admin("GET", `/aps/2/resources?implementing(${encodeURIComponent(`${T}/domain/1.0`)})`))
      .headers["content-range"];
    const r = await owner("POST", "/aps/2/resources", {
      aps: { type: `${T}/domain/1.0` },
      name: "fail.example",
      tenant: { aps: { id: tenant } },
    });
    expect(r.status).toBe(500);
    expect(r.json.message).toMatch(/DNS provider refused/);
    expect(
      (await admin("GET", `/aps/2/resources?implementing(${encodeURIComponent(`${T}/domain/1.0`)})`)).headers[
        "content-range"
      ],
    ).toBe(before);
  });

  it("answers 504 for an endpoint that hangs, and stores nothing", async () => {
    const before = (await admin("GET", `/aps/2/resources?implementing(${encodeURIComponent(`${T}/domain/1.0`)})`))
      .headers["content-range"];
    const r = await owner("POST", "/aps/2/resources", {
      aps: { type: `${T}/domain/1.0` },
      name: "hang.example",
      tenant: { aps: { id: tenant } },
    });
    expect(r.status).toBe(504);
    expect(r.json.message).toMatch(/did not answer .* within 1\.5 s/);
    expect(
      (await admin("GET", `/aps/2/resources?implementing(${encodeURIComponent(`${T}/domain/1.0`)})`)).headers[
        "content-range"
      ],
    ).toBe(before);
  });

  it("forwards configure and merges what the application returns", async () => {
    const r = await owner("PUT", `/aps/2/resources/${mailbox}`, { displayName: "Ann" });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ displayName: "Ann", used: 42 });
    // The resource as it will be, not the change alone: `aps` (status, revision, the subscription
    // the tenant belongs to), every property, encrypted ones too, and its links.
    const sent = calls.find((c) => c.what === "configure")!.body as Record<string, unknown> & {
      aps: Record<string, unknown>;
    };
    expect(sent).toMatchObject({
      displayName: "Ann",
      localPart: "ann",
      password: "0123456789",
      tenant: { aps: { id: tenant } },
    });
    expect(sent.aps).toMatchObject({ id: mailbox, type: `${T}/mailbox/1.0`, status: "aps:ready", revision: 1 });
    expect(typeof sent.aps.subscription).toBe("string");
    expect(seen.find((s) => s.method === "PUT" && s.path === `/mailboxes/${mailbox}`)).toBeDefined();
  });

  it("forwards custom operations: path and query parameters, JSON and non-JSON bodies both ways", async () => {
    const usage = await admin("GET", `/aps/2/resources/${tenant}/usage/2026-11?top=3`);
    expect(usage.status, usage.text).toBe(200);
    expect(usage.json).toEqual({ period: "2026-11", trafficIn: 3 });
    expect(seen.at(-1)!.path).toBe(`/tenants/${tenant}/usage/2026-11`);
    const csv = await admin("GET", `/aps/2/resources/${tenant}/exportMailboxes`);
    expect(csv.headers["content-type"]).toBe("text/csv");
    expect(csv.text).toBe("address,quota\na@example.com,5120\n");
    const imported = await t.call("POST", `/aps/2/resources/${tenant}/importMailboxes`, {
      token: t.adminToken,
      rawBody: "address\nb@example.com\nc@example.com\n",
      headers: { "content-type": "text/csv" },
    });
    expect(imported.json).toEqual({ created: 2, skipped: [] });
    const pw = await admin("POST", `/aps/2/resources/${mailbox}/changePassword`, { newPassword: "abcdefghijk" });
    expect(pw.status, pw.text).toBe(200);
    expect(pw.json).toBe(true);
    // purgeArchive allows admins only: the provider is admin of the customer's mailbox.
    const purge = await admin("POST", `/aps/2/resources/${mailbox}/purgeArchive?olderThanDays=30`);
    expect(purge.text).toBe('{"messages":30,"freed":9223372036854775807}');
  });

  it("checks path and query parameters and access before anything reaches the application", async () => {
    const count = seen.length;
    const bad = await admin("GET", `/aps/2/resources/${tenant}/usage/2026-11?top=many`);
    expect(bad.status).toBe(400);
    expect(bad.json.details[0]).toMatchObject({ path: "/query/top", code: "type" });
    const tooBig = await admin("GET", `/aps/2/resources/${tenant}/usage/2026-11?top=9223372036854775808`);
    expect(tooBig.json.details[0]).toMatchObject({ path: "/query/top", code: "range" });
    const denied = await owner("POST", `/aps/2/resources/${mailbox}/purgeArchive?olderThanDays=30`);
    expect(denied.status).toBe(403);
    expect(denied.json.message).toMatch(/do not allow purgeArchive/);
    expect((await admin("POST", `/aps/2/resources/${mailbox}/noSuchOperation`)).status).toBe(404);
    expect((await admin("DELETE", `/aps/2/resources/${mailbox}/changePassword`)).status).toBe(405);
    expect(seen.length).toBe(count);
  });

  it("leaves an operation's body to the application: the generated connector checks it and the caller gets its 400", async () => {
    const count = seen.length;
    const short = await admin("POST", `/aps/2/resources/${mailbox}/changePassword`, { newPassword: "short" });
    expect(short.status).toBe(400);
    expect(short.json.message).toMatch(/invalid parameters: \/body\/newPassword: /);
    const none = await admin("POST", `/aps/2/resources/${mailbox}/changePassword`);
    expect(none.status).toBe(400);
    expect(none.json.message).toMatch(/invalid parameters: \/body: /);
    expect(seen.slice(count).map((s) => s.body)).toEqual(['{"newPassword":"short"}', ""]);
  });

  it("accepts calls at the endpoint only with the controller's client certificate", async () => {
    const direct = (cert?: { cert: string; key: string }) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          `${connector.url}/mailboxes/${mailbox}`,
          { method: "DELETE", ca: endpointCa, ...(cert ?? {}) },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end();
      });
    expect(await direct()).toBe(401);
    // A certificate from another CA (here: the endpoint's own) is not the controller's.
    expect(await direct(connectorCert)).toBe(403);
    const instanceCreds = readFileSync(join(dir, "credentials", instanceId, "instance.crt"), "utf8");
    const instanceKey = readFileSync(join(dir, "credentials", instanceId, "instance.key"), "utf8");
    // The instance's own certificate is issued by the controller CA, but only the controller calls
    // endpoints: the endpoint takes the certificate of aps.x509.controller, as aps-node-runtime does.
    expect(await direct({ cert: instanceCreds, key: instanceKey })).toBe(403);
  });

  it("suspends and resumes a Suspendable resource through the application; admins only; wrong state is 409", async () => {
    expect((await owner("PUT", `/aps/2/resources/${mailbox}/disable`)).status).toBe(403);
    const off = await admin("PUT", `/aps/2/resources/${mailbox}/disable`);
    expect(off.status, off.text).toBe(200);
    expect(off.json.aps.status).toBe("aps:disabled");
    expect(seen.at(-1)).toMatchObject({ method: "PUT", path: `/mailboxes/${mailbox}/disable` });
    expect((await admin("PUT", `/aps/2/resources/${mailbox}/disable`)).status).toBe(409);
    const on = await admin("PUT", `/aps/2/resources/${mailbox}/enable`);
    expect(on.json.aps.status).toBe("aps:ready");
    expect((await admin("PUT", `/aps/2/resources/${mailbox}/enable`)).status).toBe(409);
    expect((await admin("PUT", `/aps/2/resources/${domain}/disable`)).status).toBe(404);
  });

  it("suspends and resumes a whole customer in one admin call", async () => {
    expect((await owner("POST", `/aps/2/customers/${customerAccount}/suspend`)).status).toBe(403);
    const off = await admin("POST", `/aps/2/customers/${customerAccount}/suspend`);
    expect(off.status, off.text).toBe(200);
    expect(off.json).toEqual({ changed: [mailbox], unchanged: 0, failed: [] });
    expect((await owner("GET", `/aps/2/resources/${mailbox}`)).json.aps.status).toBe("aps:disabled");
    // Again: nothing left to do.
    expect((await admin("POST", `/aps/2/customers/${customerAccount}/suspend`)).json).toEqual({
      changed: [],
      unchanged: 1,
      failed: [],
    });
    const on = await admin("POST", `/aps/2/customers/${customerAccount}/resume`);
    expect(on.json.changed).toEqual([mailbox]);
    expect((await owner("GET", `/aps/2/resources/${mailbox}`)).json.aps.status).toBe("aps:ready");
    expect((await admin("POST", "/aps/2/customers/00000000-0000-0000-0000-000000000000/suspend")).status).toBe(404);
  });

  it("serves /aps/2/application to the instance's own certificate only", async () => {
    const credentials = (await fileCredentialStore(join(dir, "credentials")).load(instanceId))!;
    const app = controllerClient({ controllerUri: t.controller.url, credentials, transactionId: "tx-join-1" });
    const services = await app.get("/aps/2/application");
    expect(services.status).toBe(200);
    // Keyed by service, each with its type's document (the Connect extension's form, platform-forms row 32).
    const byService = services.body as Record<string, { schema: string; type: string }>;
    expect(Object.keys(byService).sort()).toEqual(["cloudmail", "domains", "mailboxes", "tenants"]);
    expect(byService.tenants).toMatchObject({
      type: `${T}/tenant/1.0`,
      schema: `/aps/2/types/${encodeURIComponent(`${T}/tenant/1.0`)}`,
    });
    const read = await app.get(`/aps/2/application/mailboxes/${mailbox}`);
    expect(read.status).toBe(200);
    expect(read.headers["aps-transaction-id"]).toBe("tx-join-1");
    // The application reads encrypted properties that token callers never see.
    expect(read.body).toMatchObject({ password: "0123456789" });
    expect((await owner("GET", `/aps/2/resources/${mailbox}`)).json).not.toHaveProperty("password");
    // It may write readonly properties and set a status.
    const wrote = await app.put(`/aps/2/application/mailboxes/${mailbox}`, { used: 99 });
    expect(wrote.status).toBe(200);
    expect((await owner("GET", `/aps/2/resources/${mailbox}`)).json.used).toBe(99);
    // Registering a resource it created itself, for the owner of one of its resources.
    const acting = controllerClient({ controllerUri: t.controller.url, credentials, resourceId: mailbox });
    const registered = await acting.post("/aps/2/application/mailboxes", {
      aps: { status: "aps:proto" },
      localPart: "bob",
      password: "0123456789",
      address: "bob@example.com",
    });
    expect(registered.status).toBe(201);
    const bob = registered.body as { aps: { id: string; status: string } };
    expect(bob.aps.status).toBe("aps:proto");
    expect((await owner("GET", `/aps/2/resources/${bob.aps.id}`)).json.address).toBe("bob@example.com");
    // Issue 16 item 2: a link through the application API, as the Connect extension makes it
    // (hub/account_data_change.py:44-58: POST with no body, only 200 is success), and its DELETE.
    const linked = await app.post(`/aps/2/application/tenants/${tenant}/mailboxes/${bob.aps.id}`);
    expect(linked.status).toBe(200);
    expect(
      (await owner("GET", `/aps/2/resources/${tenant}/mailboxes`)).json.map((m: { aps: { id: string } }) => m.aps.id),
    ).toContain(bob.aps.id);
    expect((await app.post(`/aps/2/application/tenants/${tenant}/nope/${bob.aps.id}`)).status).toBe(404);
    expect((await app.post(`/aps/2/application/tenants/${tenant}/mailboxes/${tenant}`)).status).toBe(400);
    expect(
      (await app.post(`/aps/2/application/tenants/${tenant}/mailboxes/00000000-0000-0000-0000-000000000000`)).status,
    ).toBe(404);
    expect((await app.delete(`/aps/2/application/tenants/${tenant}/mailboxes/${bob.aps.id}/`)).status).toBe(204);
    expect(
      (await owner("GET", `/aps/2/resources/${tenant}/mailboxes`)).json.map((m: { aps: { id: string } }) => m.aps.id),
    ).not.toContain(bob.aps.id);
    expect((await app.delete(`/aps/2/application/tenants/${tenant}/mailboxes/${bob.aps.id}`)).status).toBe(404);
    // Registration at the service with a trailing slash (the documents write POST /aps/2/application/{service}/; docs/aps/rest-api.md).
    const slashed = await app.post("/aps/2/application/mailboxes/", {
      aps: { status: "aps:proto" },
      localPart: "cy",
      password: "0123456789",
      address: "cy@example.com",
    });
    expect(slashed.status).toBe(201);
    expect(
      (await app.delete(`/aps/2/application/mailboxes/${(slashed.body as { aps: { id: string } }).aps.id}/`)).status,
    ).toBe(204);
    expect((await app.delete(`/aps/2/application/mailboxes/${bob.aps.id}`)).status).toBe(204);
    expect((await owner("GET", `/aps/2/resources/${bob.aps.id}`)).status).toBe(404);
    expect((await app.get(`/aps/2/application/mailboxes/${tenant}`)).status).toBe(404);
    expect((await app.post("/aps/2/application/mailboxes", { bogus: 1 })).status).toBe(400);
  });

  it("refuses /aps/2/application without a certificate, with another CA's, or with one no instance holds", async () => {
    expect((await t.call("GET", "/aps/2/application", { token: t.adminToken })).status).toBe(401);
    const foreign = controllerClient({
      controllerUri: t.controller.url,
      credentials: { certAndKey: connectorCert.cert + connectorCert.key, controllerCa: t.controller.caCert },
    });
    expect((await foreign.get("/aps/2/application")).status).toBe(401);
    const controllerOwn = {
      certAndKey:
        readFileSync(join(t.dataDir, "tls/controller-client.crt"), "utf8") +
        readFileSync(join(t.dataDir, "tls/controller-client.key"), "utf8"),
      controllerCa: t.controller.caCert,
    };
    const notAnInstance = await controllerClient({ controllerUri: t.controller.url, credentials: controllerOwn }).get(
      "/aps/2/application",
    );
    expect(notAnInstance.status).toBe(403);
    expect((notAnInstance.body as { message: string }).message).toMatch(
      /No application instance holds this certificate/,
    );
  });

  it("keeps instances apart: another instance's certificate does not reach this one's resources", async () => {
    const second = await admin("POST", "/aps/2/instances", {
      package: packageId,
      endpoint: connector.url,
      endpointCa,
      settings: { apiEndpoint: "https://api2.example", apiKey: "key-0123456789abcdef", apiSecret: "secret-0123456789" },
    });
    expect(second.status, second.text).toBe(201);
    const credentials = (await fileCredentialStore(join(dir, "credentials")).load(second.json.id))!;
    const other = controllerClient({ controllerUri: t.controller.url, credentials });
    expect((await other.get(`/aps/2/application/mailboxes/${mailbox}`)).status).toBe(404);
    expect((await other.put(`/aps/2/application/mailboxes/${mailbox}`, { used: 1 })).status).toBe(404);
    expect((await other.delete(`/aps/2/application/mailboxes/${mailbox}`)).status).toBe(404);
    expect((await admin("GET", "/aps/2/instances")).json).toHaveLength(2);
  });

  it("tells the application of link changes (501 keeps the link), and keeps strong links", async () => {
    // A second tenant of the customer: the mailbox (which requires its own tenant) is linked into its collection.
    const account = JSON.parse(Buffer.from(customer.split(".")[1]!, "base64url").toString()).acc;
    const sub = await owner("POST", "/aps/2/resources", { aps: { type: SUBSCRIPTION }, name: "s2" });
    const other = (
      await owner("POST", "/aps/2/resources", {
        aps: { type: `${T}/tenant/1.0` },
        account: { aps: { id: account } },
        subscription: { aps: { id: sub.json.aps.id } },
      })
    ).json.aps.id as string;
    linkCalls.length = 0;
    const linked = await owner("POST", `/aps/2/resources/${other}/mailboxes`, { aps: { id: mailbox } });
    expect(linked.status, linked.text).toBe(200);
    expect(linkCalls).toEqual([`+${other}/mailboxes/${mailbox}`]);
    expect(seen.at(-1)).toMatchObject({ method: "POST", path: `/tenants/${other}/mailboxes` });
    // The tenant the mailbox requires has it as a member already: linking again tells nobody anything,
    // and unlinking it from that end is refused (it cannot be without its tenant).
    expect((await owner("POST", `/aps/2/resources/${tenant}/mailboxes`, { aps: { id: mailbox } })).status).toBe(200);
    expect(linkCalls).toHaveLength(1);
    const kept = await owner("DELETE", `/aps/2/resources/${tenant}/mailboxes/${mailbox}`);
    expect(kept.status).toBe(409);
    expect(kept.json.message).toMatch(/required relation "tenant"/);
    // No callback for domains: the endpoint answers 501 and the controller keeps the link.
    expect((await owner("POST", `/aps/2/resources/${other}/domains`, { aps: { id: domain } })).status).toBe(200);
    expect((await owner("GET", `/aps/2/resources/${other}/domains`)).json.map((d: { name: string }) => d.name)).toEqual(
      ["example.com"],
    );
    expect((await owner("DELETE", `/aps/2/resources/${other}/mailboxes/${mailbox}`)).status).toBe(204);
    expect(linkCalls).toEqual([`+${other}/mailboxes/${mailbox}`, `-${other}/mailboxes/${mailbox}`]);
    expect((await owner("DELETE", `/aps/2/resources/${other}/domains/${domain}`)).status).toBe(204);
    expect((await owner("DELETE", `/aps/2/resources/${other}`)).status).toBe(204);
    const root = (await admin("GET", "/aps/2/instances")).json[0].rootResource;
    const strong = await owner("DELETE", `/aps/2/resources/${tenant}/app/${root}`);
    expect(strong.status).toBe(409);
    expect(strong.json.message).toMatch(/strong link/);
  });

  it("forwards unprovision and removes the resource only after the application agreed", async () => {
    const r = await admin("DELETE", `/aps/2/resources/${domain}`);
    expect(r.status).toBe(409); // the mailbox holds a strong link to it
    const d = await admin("DELETE", `/aps/2/resources/${mailbox}`);
    expect([204, 404]).toContain(d.status);
    expect((await admin("GET", `/aps/2/resources/${mailbox}`)).status).toBe(404);
  });

  it("re-issues an instance's credentials: the endpoint gets the new ones, the old certificate stops working", async () => {
    const store = fileCredentialStore(join(dir, "credentials"));
    const old = (await store.load(instanceId))!;
    // The instances API says when the certificate it issued expires, and says it again of the new one.
    const expiryOf = (certAndKey: string) => new Date(new X509Certificate(certAndKey).validTo).toISOString();
    const before = await admin("GET", `/aps/2/instances/${instanceId}`);
    expect(before.json.certificate).toEqual({ notAfter: expiryOf(old.certAndKey) });
    // Times in ISO 8601, as everywhere in the API.
    expect(before.json.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const r = await admin("POST", `/aps/2/instances/${instanceId}/credentials`);
    expect(r.status, r.text).toBe(200);
    const fresh = (await store.load(instanceId))!;
    expect(fresh.certAndKey).not.toBe(old.certAndKey);
    expect(r.json.certificate).toEqual({ notAfter: expiryOf(fresh.certAndKey) });
    expect(Date.parse(r.json.certificate.notAfter)).toBeGreaterThanOrEqual(
      Date.parse(before.json.certificate.notAfter),
    );
    expect(
      (await controllerClient({ controllerUri: t.controller.url, credentials: old }).get("/aps/2/application")).status,
    ).toBe(403);
    expect(
      (await controllerClient({ controllerUri: t.controller.url, credentials: fresh }).get("/aps/2/application"))
        .status,
    ).toBe(200);
  });

  it("uninstalls an instance: dependents first, the root last; a dead endpoint needs force", async () => {
    const instances = (await admin("GET", "/aps/2/instances")).json as { id: string; rootResource: string }[];
    const first = instances.find((i) => i.id === instanceId)!;
    const from = seen.length;
    const r = await admin("DELETE", `/aps/2/instances/${instanceId}`);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ removed: 3, endpointErrors: [] });
    const deletes = seen
      .slice(from)
      .filter((s) => s.method === "DELETE")
      .map((s) => s.path);
    expect(deletes).toEqual([`/domains/${domain}`, `/tenants/${tenant}`, `/cloudmail/${first.rootResource}`]);
    expect((await admin("GET", `/aps/2/resources/${tenant}`)).status).toBe(404);

    // An instance whose endpoint has gone away.
    const tls = await ensureControllerTls(join(dir, "dead-endpoint"), ["127.0.0.1"]);
    const dead = await startConnector(
      createConnectorApp({
        services: { cloudmail: {} },
        credentials: fileCredentialStore(join(dir, "dead-credentials")),
      }),
      tls.server,
    );
    const installed = await admin("POST", "/aps/2/instances", {
      package: packageId,
      endpoint: dead.url,
      endpointCa: tls.ca.cert,
      settings: { apiEndpoint: "https://api3.example", apiKey: "key-0123456789abcdef", apiSecret: "secret-0123456789" },
    });
    expect(installed.status, installed.text).toBe(201);
    const alive = await admin("GET", `/aps/2/instances/${installed.json.id}/health`);
    expect(alive.status, alive.text).toBe(200);
    expect(alive.json).toMatchObject({ endpoint: dead.url, reachable: true });
    expect(alive.json.status).toBeGreaterThanOrEqual(200);
    await dead.close();
    // Its health says so, and why, as an answer of its own (not a 502 of the check).
    const gone = await admin("GET", `/aps/2/instances/${installed.json.id}/health`);
    expect(gone.status, gone.text).toBe(200);
    expect(gone.json).toMatchObject({ endpoint: dead.url, reachable: false });
    expect(gone.json.error).toMatch(/cannot be reached/);
    expect(gone.json.status).toBeUndefined();
    expect((await admin("GET", "/aps/2/instances/00000000-0000-4000-8000-000000000000/health")).status).toBe(404);
    const refused = await admin("DELETE", `/aps/2/instances/${installed.json.id}`);
    expect(refused.status).toBe(502);
    expect(refused.json.message).toMatch(/force=true/);
    const forced = await admin("DELETE", `/aps/2/instances/${installed.json.id}?force=true`);
    expect(forced.status).toBe(200);
    expect(forced.json.removed).toBe(1);
    expect(forced.json.endpointErrors[0]).toMatch(/cannot be reached/);
    expect((await admin("GET", `/aps/2/instances/${installed.json.id}`)).status).toBe(404);
  });
});
