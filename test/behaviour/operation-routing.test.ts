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
  /** Each call's body and content type as they reached the endpoint, byte for byte. */
  const arrived: { bytes: Buffer; contentType: string | undefined }[] = [];
  /** When set, the endpoint answers this itself, as an application that takes any body would. */
  let ownReply: { status: number; contentType: string; body: string } | undefined;
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
      arrived.push({
        bytes: Buffer.from(await c.req.raw.clone().arrayBuffer()),
        contentType: c.req.header("content-type"),
      });
      if (ownReply)
        return new Response(ownReply.body, {
          status: ownReply.status,
          headers: { "content-type": ownReply.contentType },
        });
      await next();
    });
    recorded.route("/", createConnectorApp({ services, credentials: fileCredentialStore(join(dir, "credentials")) }));
    connector = await startConnector(recorded, tls.server);
    const pkg = (await admin("GET", "/aps/2/packages")).json.find((p: { name: string }) => p.name === "CloudMail").id;
    const installed = await admin("POST", "/aps/2/instances", {
      package: pkg,
      endpoint: connector.url,
      endpointCa: tls.ca.cert,
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
    const domain = (
      await admin("POST", "/aps/2/resources", {
        aps: { type: `${T}/domain/1.0` },
        name: "example.com",
        tenant: { aps: { id: tenant } },
      })
    ).json.aps.id;
    const m = await admin("POST", "/aps/2/resources", {
      aps: { type: `${T}/mailbox/1.0` },
      localPart: "ann",
      password: "0123456789",
      tenant: { aps: { id: tenant } },
      domain: { aps: { id: domain } },
    });
    expect(m.status, m.text).toBe(201);
    mailbox = m.json.aps.id;
  }, 60_000);
  afterAll(async () => {
    await connector?.close();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const admin = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { token: t.adminToken, ...(body === undefined ? {} : { body }) });

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
    const available = await admin("POST", `/aps/2/static/${encodedType}/checkAvailability/`, {
      localPart: "bob",
      domain: "example.com",
    });
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
    for (const path of [
      `/aps/2/resources/${mailbox}/noSuchOperation`,
      `/aps/2/resources/${mailbox}/noSuchOperation/`,
      `/aps/2/resources/${tenant}/usage`,
      `/aps/2/resources/${tenant}/usage/2026/11`,
    ]) {
      const r = await admin("POST", path);
      expect(r.status, path).toBe(404);
      expect(r.json.message, path).toMatch(/has no operation POST \/.*; it has /);
    }
    for (const path of [
      `/aps/2/resources/${mailbox}/changePassword`,
      `/aps/2/resources/${mailbox}/changePassword/`,
      `${t.controller.url}//aps/2/resources/${mailbox}//changePassword`,
    ]) {
      const r = await admin("DELETE", path);
      expect(r.status, path).toBe(405);
      expect(r.json.message, path).toMatch(
        /Mailbox has no operation DELETE \/changePassword; it has .*POST \/changePassword/,
      );
    }
    expect((await admin("GET", `/aps/2/resources/${tenant}/usage/2026-11/extra`)).status).toBe(404);
    expect(
      (await admin("PUT", `/aps/2/static/${encodeURIComponent(`${T}/mailbox/1.0`)}/checkAvailability`)).status,
    ).toBe(405);
    expect((await admin("POST", `/aps/2/static/${encodeURIComponent(`${T}/mailbox/1.0`)}/nothing`)).status).toBe(404);
    expect(seen.length).toBe(count);
  });

  describe("issue 28 item 8: the controller proxies a custom operation's body; the application validates it", () => {
    const raw = (method: string, path: string, body: string | Uint8Array, contentType?: string) =>
      // Bytes, not a string: fetch would make up a text/plain Content-Type for a string.
      t.request(path, {
        method,
        body: typeof body === "string" ? new TextEncoder().encode(body) : body,
        ...(contentType ? { headers: { "content-type": contentType } } : {}),
      });
    const staticPath = (op: string) => `/aps/2/static/${encodeURIComponent(`${T}/mailbox/1.0`)}/${op}`;

    it("forwards a body member the declaration does not name, byte for byte, and answers with the application's reply", async () => {
      ownReply = { status: 200, contentType: "application/json", body: '{"done":"yes, with extra"}' };
      try {
        // Spacing, member order and a 64-bit integer kept exactly as sent.
        const sent = '{ "newPassword":"abcdefghijk",  "extra": 9223372036854775807 }';
        const r = await raw("POST", `/aps/2/resources/${mailbox}/changePassword`, sent, "application/json");
        expect(r.status, await r.clone().text()).toBe(200);
        expect(await r.text()).toBe('{"done":"yes, with extra"}');
        expect(seen.at(-1)).toBe(`POST /mailboxes/${mailbox}/changePassword`);
        expect(arrived.at(-1)!.bytes.toString("utf8")).toBe(sent);
        expect(arrived.at(-1)!.contentType).toBe("application/json");
        // A static operation's body too.
        const staticBody = '{"localPart":"bob","domain":"example.com","hint":[1,2]}';
        expect(
          (await raw("POST", staticPath("checkAvailability"), staticBody, "application/json; charset=utf-8")).status,
        ).toBe(200);
        expect(arrived.at(-1)).toEqual({
          bytes: Buffer.from(staticBody),
          contentType: "application/json; charset=utf-8",
        });
      } finally {
        ownReply = undefined;
      }
    });

    it("forwards a body that is not JSON, or not the declared type, as it came; the application decides", async () => {
      ownReply = { status: 422, contentType: "text/plain", body: "not for me" };
      try {
        const cases: [string, Uint8Array | string, string | undefined][] = [
          [`/aps/2/resources/${mailbox}/changePassword`, "{not json", "application/json"],
          [`/aps/2/resources/${mailbox}/changePassword`, new Uint8Array([0, 255, 1, 254]), "application/octet-stream"],
          [`/aps/2/resources/${tenant}/importMailboxes`, '{"declared":"text/csv"}', "application/json"],
          // No Content-Type: none is made up on the way.
          [`/aps/2/resources/${mailbox}/changePassword`, '{"newPassword":"abcdefghijk"}', undefined],
        ];
        for (const [path, body, type] of cases) {
          const r = await raw("POST", path, body, type);
          expect(r.status, path).toBe(422);
          expect(await r.text()).toBe("not for me");
          expect(arrived.at(-1)!.bytes).toEqual(Buffer.from(body));
          expect(arrived.at(-1)!.contentType).toBe(type);
        }
      } finally {
        ownReply = undefined;
      }
    });

    it("the generated connector checks the body against the declaration: the caller gets its 400", async () => {
      const extra = await raw(
        "POST",
        `/aps/2/resources/${mailbox}/changePassword`,
        '{"newPassword":"abcdefghijk","extra":1}',
        "application/json",
      );
      expect(extra.status).toBe(400);
      expect(((await extra.json()) as { message: string }).message).toMatch(
        /operation changePassword: invalid parameters: \/body\/extra: /,
      );
      expect(seen.at(-1)).toBe(`POST /mailboxes/${mailbox}/changePassword`);
      const short = await raw(
        "POST",
        `/aps/2/resources/${mailbox}/changePassword`,
        '{"newPassword":"short"}',
        "application/json",
      );
      expect(((await short.json()) as { message: string }).message).toMatch(/\/body\/newPassword: /);
      const none = await t.call("POST", `/aps/2/resources/${mailbox}/changePassword`, { token: t.adminToken });
      expect(none.status).toBe(400);
      expect(none.json.message).toMatch(/\/body: /);
      const notJson = await raw("POST", `/aps/2/resources/${mailbox}/changePassword`, "{not json", "application/json");
      expect(notJson.status).toBe(400);
      expect(((await notJson.json()) as { message: string }).message).toMatch(/not JSON/);
      // JSON sent without a Content-Type is read as JSON (what FastAPI does too).
      const untyped = await raw("POST", `/aps/2/resources/${mailbox}/changePassword`, '{"newPassword":"abcdefghijk"}');
      expect(untyped.status, await untyped.clone().text()).toBe(200);
      const staticExtra = await raw(
        "POST",
        staticPath("checkAvailability"),
        '{"localPart":"bob","domain":"example.com","hint":1}',
        "application/json",
      );
      expect(staticExtra.status).toBe(400);
      expect(((await staticExtra.json()) as { message: string }).message).toMatch(/\/body\/hint: /);
    });

    it("still checks path and query parameters, access and the size limit before anything is sent", async () => {
      const count = seen.length;
      const badQuery = await admin("GET", `/aps/2/resources/${tenant}/usage/2026-11?top=many`);
      expect(badQuery.status).toBe(400);
      expect(badQuery.json.details[0]).toMatchObject({ path: "/query/top", code: "type" });
      // A bad query with a bad body: only the query is the controller's to name.
      const both = await t.call("POST", `/aps/2/resources/${mailbox}/purgeArchive?olderThanDays=soon`, {
        token: t.adminToken,
        rawBody: "{oops",
        headers: { "content-type": "application/json" },
      });
      expect(both.status).toBe(400);
      expect(both.json.details.map((d: { path: string }) => d.path)).toEqual(["/query/olderThanDays"]);
      const tooBig = await raw(
        "POST",
        `/aps/2/resources/${mailbox}/changePassword`,
        "x".repeat(1024 * 1024 + 1),
        "text/plain",
      );
      expect(tooBig.status).toBe(413);
      expect(seen.length).toBe(count);
    });
  });
});
