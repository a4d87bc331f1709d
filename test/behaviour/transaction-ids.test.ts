/**
 * Issue 28 item 5: every `APS-Transaction-ID` an application endpoint receives is an identifier
 * (a UUID in RFC 4122 text form), whatever the call: an install with a certificate or with OAuth
 * credentials, a provisioning and its asynchronous repeats, a link, a configure, a custom
 * operation, an event notification, an unprovisioning. And what the id stands for still works
 * when the application calls back with it while its resource is not stored yet: it subscribes
 * during its own install (authenticated by the new certificate, or by the OAuth key the install
 * carries) and during a provisioning, and acts for the resource it is creating. On PostgreSQL the
 * calls back reach another controller process than the one making the call. An id the controller
 * did not issue is an unknown transaction.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizationHeader } from "../../runtime/controller/auth/oauth-signature.ts";
import {
  createCloudmailTenant,
  credentialsOf,
  startFakeApplication,
  successOf,
  type FakeApplication,
  type ReceivedCall,
} from "../e2e/fake-application.ts";
import { httpsClient } from "../helpers/https-client.ts";
import { until } from "../helpers/until.ts";
import { databases, startBehaviourController, type BehaviourController } from "./harness.ts";

const MAIL = "http://cloudmail.example.com/types";
const VPS = "http://vpscloud.example.net/types";
const AVAILABLE = "http://aps-standard.org/core/events/available";
const KEY = "vpscloud-connector";
const SECRET = "vps-oauth-secret-0123456789";

/** RFC 4122 text form: 8-4-4-4-12 hex digits, a version nibble and the RFC variant. */
const RFC_4122 = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe.each(databases)("transaction ids on %s", (kind) => {
  let t: BehaviourController;
  let other: { url: string; close(): Promise<void> } | undefined;
  /** Where the applications call back: another controller process on PostgreSQL. */
  let back = "";
  let mail: FakeApplication;
  let vps: FakeApplication;
  const dir = mkdtempSync(join(tmpdir(), "aps-transaction-ids-"));
  /** What the applications' calls back got, by what they tried. */
  const outcomes = new Map<string, number>();
  let mailRoot = "";
  let tenant = "";
  let domain = "";
  let deferDomain = true;
  let account = "";
  let subscription = "";

  const admin = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { token: t.adminToken, ...(body === undefined ? {} : { body }) });
  const transactionOf = (call: ReceivedCall) => call.headers["aps-transaction-id"] as string | undefined;

  /** cloudmail: calls back with its certificate during its install and during a tenant's provisioning. */
  async function answerMail(call: ReceivedCall) {
    const tx = transactionOf(call) ?? "";
    const asMail = () => httpsClient(back, t.controller.caCert, credentialsOf(mail));
    const subscribe = async (what: string, subscriber: string, body: object, transaction: string) => {
      outcomes.set(
        what,
        (
          await asMail()("POST", `/aps/2/resources/${subscriber}/aps/subscriptions`, {
            body,
            headers: { "aps-transaction-id": transaction },
          })
        ).status,
      );
    };
    const id = (call.body?.aps as { id?: string } | undefined)?.id ?? "";
    if (call.method === "POST" && /^\/cloudmail\/?$/.test(call.path)) {
      // Its own install: the instance is not stored, its certificate is known by the transaction alone.
      const body = { event: AVAILABLE, source: { type: `${MAIL}/tenant/1.0` }, handler: "testConnection" };
      await subscribe("install, unknown id", id, body, randomUUID());
      await subscribe("install", id, body, tx);
    }
    if (call.method === "POST" && /^\/tenants\/?$/.test(call.path)) {
      const body = { event: AVAILABLE, source: { type: `${MAIL}/mailbox/1.0` }, handler: "onMailboxChanged" };
      await subscribe("provisioning, unknown id", id, body, randomUUID());
      await subscribe("provisioning", id, body, tx);
      // Acting for the resource it is creating (not stored yet): as itself.
      for (const [what, transaction] of [
        ["acting for it, unknown id", randomUUID()],
        ["acting for it", tx],
      ] as const) {
        outcomes.set(
          what,
          (
            await asMail()("GET", `/aps/2/resources/${mailRoot}`, {
              headers: { "aps-resource-id": id, "aps-transaction-id": transaction },
            })
          ).status,
        );
      }
    }
    if (
      call.method === "POST" &&
      /^\/domains\/?$/.test(call.path) &&
      deferDomain &&
      call.headers["aps-request-phase"] !== "async"
    ) {
      return { status: 202, headers: { "aps-info": "creating the zone", "aps-retry-timeout": "1" }, body: {} };
    }
    return successOf(call);
  }

  /** vpscloud, installed with OAuth credentials: subscribes during its install with an OAuth signature. */
  async function answerVps(call: ReceivedCall) {
    if (call.method === "POST" && /^\/vpscloud\/?$/.test(call.path)) {
      const root = (call.body!.aps as { id: string }).id;
      const url = `${back}/aps/2/resources/${root}/aps/subscriptions`;
      const body = { event: AVAILABLE, source: { type: `${VPS}/management/1.1` }, handler: "syncImages" };
      const signed = httpsClient(back, t.controller.caCert);
      for (const [what, transaction] of [
        ["OAuth install, unknown id", randomUUID()],
        ["OAuth install", transactionOf(call)!],
      ] as const) {
        outcomes.set(
          what,
          (
            await signed("POST", url, {
              body,
              headers: {
                authorization: authorizationHeader("POST", url, { key: KEY, secret: SECRET }),
                "aps-transaction-id": transaction,
              },
            })
          ).status,
        );
      }
    }
    return successOf(call);
  }

  beforeAll(async () => {
    t = await startBehaviourController(kind, ["types/examples/cloudmail", "types/examples/vpscloud"], {
      endpointTimeoutMs: 10_000,
      eventDelivery: { idleMs: 50 },
    });
    other = kind === "postgres" ? await t.second() : undefined;
    back = other?.url ?? t.controller.url;
    mail = await startFakeApplication(join(dir, "mail"));
    vps = await startFakeApplication(join(dir, "vps"));
    mail.answer = answerMail;
    vps.answer = answerVps;
  }, 60_000);
  afterAll(async () => {
    await other?.close();
    await mail?.close();
    await vps?.close();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("installs with a certificate: the application subscribes for its root while it installs, with the install's transaction id only", async () => {
    const packages = (await admin("GET", "/aps/2/packages")).json as { id: string; slug: string }[];
    const r = await admin("POST", "/aps/2/instances", {
      package: packages.find((p) => p.slug === "cloudmail")!.id,
      endpoint: mail.url,
      endpointCa: mail.ca,
      settings: { apiEndpoint: "https://api.example", apiKey: "key-0123456789abcdef", apiSecret: "secret-0123456789" },
    });
    expect(r.status, r.text).toBe(201);
    mailRoot = r.json.rootResource;
    expect(outcomes.get("install, unknown id")).toBe(403);
    expect(outcomes.get("install")).toBe(200);
    expect((await admin("GET", `/aps/2/resources/${mailRoot}/aps/subscriptions`)).json).toMatchObject([
      { event: AVAILABLE, handler: "testConnection" },
    ]);
  });

  it("installs with OAuth credentials: the application's signed call during its install is known by the key its transaction holds", async () => {
    const packages = (await admin("GET", "/aps/2/packages")).json as { id: string; slug: string }[];
    const r = await admin("POST", "/aps/2/instances", {
      package: packages.find((p) => p.slug === "vpscloud")!.id,
      endpoint: vps.url,
      endpointCa: vps.ca,
      auth: { oauth: { key: KEY, secret: SECRET } },
      settings: { apiUrl: "https://vps.example", apiToken: "token-0123456789" },
    });
    expect(r.status, r.text).toBe(201);
    expect(outcomes.get("OAuth install, unknown id")).toBe(401);
    expect(outcomes.get("OAuth install")).toBe(200);
    expect((await admin("GET", `/aps/2/resources/${r.json.rootResource}/aps/subscriptions`)).json).toMatchObject([
      { event: AVAILABLE, handler: "syncImages" },
    ]);
  });

  it("provisions: the application subscribes for and acts for the resource it is creating, with the provisioning's transaction id only", async () => {
    ({ account, subscription, tenant } = await createCloudmailTenant(t));
    expect(
      Object.fromEntries(
        [...outcomes].filter(([what]) => what.startsWith("provisioning") || what.startsWith("acting")),
      ),
    ).toEqual({
      "provisioning, unknown id": 404,
      provisioning: 200,
      "acting for it, unknown id": 403,
      "acting for it": 200,
    });
    expect((await admin("GET", `/aps/2/resources/${tenant}/aps/subscriptions`)).json).toMatchObject([
      { event: AVAILABLE, handler: "onMailboxChanged" },
    ]);
  });

  it("repeats an accepted provisioning under the same transaction id, and links, configures, calls, notifies and unprovisions", async () => {
    const d = await admin("POST", "/aps/2/resources", {
      aps: { type: `${MAIL}/domain/1.0` },
      name: "example.org",
      tenant: { aps: { id: tenant } },
    });
    expect(d.status, d.text).toBe(202);
    domain = d.json.aps.id;
    await until("the domain's provisioning repeated", () =>
      mail.calls.some((c) => c.path.startsWith("/domains") && c.headers["aps-request-phase"] === "async"),
    );
    await until(
      "the domain ready",
      async () => (await admin("GET", `/aps/2/resources/${domain}`)).json.aps.status === "aps:ready",
    );
    deferDomain = false;
    const domainCalls = mail.calls.filter((c) => c.method === "POST" && /^\/domains\/?$/.test(c.path));
    expect(new Set(domainCalls.map(transactionOf)).size).toBe(1);
    // A relink: the domain moves to another tenant of the same customer.
    const tenant2 = await admin("POST", "/aps/2/resources", {
      aps: { type: `${MAIL}/tenant/1.0` },
      account: { aps: { id: account } },
      subscription: { aps: { id: subscription } },
    });
    expect(tenant2.status, tenant2.text).toBe(201);
    const relinked = await admin("POST", `/aps/2/resources/${domain}/tenant`, { aps: { id: tenant2.json.aps.id } });
    expect(relinked.status, relinked.text).toBe(200);
    expect((await admin("PUT", `/aps/2/resources/${tenant}`, { retentionDays: 30 })).status).toBe(200);
    expect((await admin("GET", `/aps/2/resources/${tenant}/usage/2026-11`)).status).toBe(200);
    // The root subscribed to new tenants while it installed.
    await until("the tenant's notification", () =>
      mail.calls.some((c) => c.path.startsWith(`/cloudmail/${mailRoot}/testConnection`)),
    );
    expect((await admin("DELETE", `/aps/2/resources/${domain}`)).status).toBe(204);
  });

  it("sends nothing, and leaves no intent to undo, when the provisioning's transaction cannot be written", async () => {
    await t.sql("alter table transactions add constraint refuse_all check (false) not valid");
    try {
      const before = mail.calls.length;
      const r = await admin("POST", "/aps/2/resources", {
        aps: { type: `${MAIL}/tenant/1.0` },
        account: { aps: { id: account } },
        subscription: { aps: { id: subscription } },
      });
      expect(r.status, r.text).toBe(500);

      expect(mail.calls.length).toBe(before);
      // The intent, written beside the transaction, may land after the transaction failed: it goes all the same.
      await new Promise((settle) => setTimeout(settle, 300));
      expect(await t.sql("select count(*)::int as n from provisioning_intents")).toEqual([{ n: 0 }]);
    } finally {
      await t.sql("alter table transactions drop constraint refuse_all");
    }
  });

  it("sent every call a UUID as its APS-Transaction-ID", () => {
    const calls = [...mail.calls, ...vps.calls];
    const seen = (method: string, path: RegExp, phase = "sync") =>
      calls.filter(
        (c) =>
          c.method === method &&
          path.test(c.path.split("?")[0]!) &&
          (c.headers["aps-request-phase"] ?? "sync") === phase,
      );
    // Each kind of call is there: installs, provisionings and their repeat, link, configure, operation, notification, unprovisioning.
    for (const [method, path, phase] of [
      ["POST", /^\/cloudmail\/?$/],
      ["POST", /^\/vpscloud\/?$/],
      ["POST", /^\/tenants\/?$/],
      ["POST", /^\/domains\/?$/],
      ["POST", /^\/domains\/?$/, "async"],
      ["POST", /^\/domains\/[^/]+\/tenant$/],
      ["PUT", /^\/tenants\/[^/]+$/],
      ["GET", /^\/tenants\/[^/]+\/usage\//],
      ["POST", /^\/cloudmail\/[^/]+\/testConnection$/],
      ["DELETE", /^\/domains\/[^/]+$/],
    ] as const) {
      expect(seen(method, path, phase).length, `${method} ${path} (${phase ?? "sync"})`).toBeGreaterThan(0);
    }
    const ids = calls.map((c) => ({ call: `${c.method} ${c.path}`, transaction: transactionOf(c) }));
    expect(ids.filter((c) => !RFC_4122.test(c.transaction ?? ""))).toEqual([]);
  });
});
