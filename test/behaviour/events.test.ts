import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cloudmailServices } from "../../generated/connector/examples/cloudmail/index.gen.ts";
import type { Notification } from "../../generated/types/core/index.gen.ts";
import { createConnectorApp } from "../../runtime/connector/app.ts";
import { controllerClient } from "../../runtime/connector/controller-client.ts";
import { fileCredentialStore } from "../../runtime/connector/credentials.ts";
import { accepted, ConnectorError } from "../../runtime/connector/replies.ts";
import { startConnector, type RunningConnector } from "../../runtime/connector/serve.ts";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { ensureControllerTls } from "../../runtime/common/certificate-authority.ts";
import { until } from "../helpers/until.ts";
import { databases, startBehaviourController, type BehaviourController } from "./harness.ts";

const T = "http://cloudmail.example.com/types";
const E = "http://aps-standard.org/core/events";
const SUBSCRIPTION = "http://aps-standard.org/types/core/subscription/1.0";

/** A notification as the endpoint received it, with the handler and subscriber it went to. */
interface Received {
  handler: string;
  subscriber: string;
  body: Notification & { event: string; subscription: string; relation?: string; target?: { id: string } };
}

describe.each(databases)("event subscriptions and notifications on %s", (kind) => {
  let t: BehaviourController;
  let connector: RunningConnector;
  let endpoint!: { cert: string; key: string; ca: string };
  const dir = mkdtempSync(join(tmpdir(), "aps-events-"));
  const credentials = fileCredentialStore(join(dir, "credentials"));
  const received: Received[] = [];
  /** While set, the mailbox handler fails this way. */
  let mailboxFailure: ConnectorError | undefined;
  let domainFailure: ConnectorError | undefined;
  let staged: { status: number; body: unknown } | undefined;
  /** Where the tenant handler subscribes (another controller process), and whether it then refuses. */
  let callbackUri: string | undefined;
  let refuseTenant = false;
  let acceptOnce = false;
  let acceptedAt = 0;
  const notUsed = (): never => {
    throw new ConnectorError(501, "not used in this test");
  };
  let customer = "";
  let tenant = "";
  let domain = "";

  const services = cloudmailServices({
    cloudmail: { provision: () => ({ imapHost: "imap.example.net" }), testConnection: notUsed },
    tenants: {
      // Subscribes while it is being provisioned, joining the transaction (docs/aps/events.md).
      provision: async (ctx, r) => {
        const client = controllerClient({
          controllerUri: callbackUri ?? ctx.controllerUri!,
          credentials: (await credentials.load(ctx.instanceId))!,
          ...(ctx.transactionId ? { transactionId: ctx.transactionId } : {}),
        });
        const reply = await client.post(`/aps/2/resources/${r.aps.id}/aps/subscriptions`, {
          event: `${E}/available`,
          source: { type: `${T}/mailbox/1.0` },
          handler: "onMailboxChanged",
        });
        staged = { status: reply.status, body: reply.body };
        if (refuseTenant) throw new ConnectorError(500, "the organisation could not be created");
        return { organizationId: "org-1" };
      },
      usage: notUsed,
      exportMailboxes: notUsed,
      importMailboxes: notUsed,
      onSubscriptionLimitsChanged: (ctx, params) =>
        void received.push({
          handler: "onSubscriptionLimitsChanged",
          subscriber: ctx.resourceId!,
          body: params.event as Received["body"],
        }),
      onDomainLinked: (ctx, params) => {
        if (acceptOnce) {
          acceptOnce = false;
          acceptedAt = Date.now();
          return accepted("busy; send it again in a second", 1);
        }
        if (domainFailure) throw domainFailure;
        received.push({
          handler: "onDomainLinked",
          subscriber: ctx.resourceId!,
          body: params.event as Received["body"],
        });
      },
      onMailboxChanged: (ctx, params) => {
        if (mailboxFailure) throw mailboxFailure;
        received.push({
          handler: "onMailboxChanged",
          subscriber: ctx.resourceId!,
          body: params.event as Received["body"],
        });
      },
    },
    domains: { provision: () => ({ verified: true }), verifyDns: notUsed, requiredRecords: notUsed },
    mailboxes: {
      provision: (_ctx, r) => ({ address: `${r.localPart}@example.com`, used: 0 }),
      configure: () => ({}),
      unprovision: () => undefined,
      disable: () => undefined,
      enable: () => undefined,
      changePassword: notUsed,
      checkAvailability: notUsed,
      storageUsage: notUsed,
      purgeArchive: notUsed,
    },
  });
  const app = createConnectorApp({ services, credentials });

  beforeAll(async () => {
    // Short retries so that the dead-letter path takes seconds: 0.2 s, 0.4 s, ... 6 failures.
    t = await startBehaviourController(kind, ["types/examples/cloudmail"], {
      endpointTimeoutMs: 2000,
      eventDelivery: { retryBaseSeconds: 0.2, maxAttempts: 6, idleMs: 50 },
    });
    const tls = await ensureControllerTls(join(dir, "endpoint-tls"), ["127.0.0.1"]);
    endpoint = { ...tls.server, ca: tls.ca.cert };
    connector = await startConnector(app, endpoint);
    const pkg = (await t.call("GET", "/aps/2/packages", { token: t.adminToken })).json.find(
      (p: { name: string }) => p.name === "CloudMail",
    ).id;
    const installed = await t.call("POST", "/aps/2/instances", {
      token: t.adminToken,
      body: {
        package: pkg,
        endpoint: connector.url,
        endpointCa: endpoint.ca,
        settings: {
          apiEndpoint: "https://api.example",
          apiKey: "key-0123456789abcdef",
          apiSecret: "secret-0123456789",
        },
      },
    });
    expect(installed.status, installed.text).toBe(201);
    const account = await t.call("POST", "/aps/2/resources", {
      token: t.adminToken,
      body: {
        aps: { type: "http://aps-standard.org/types/core/account/1.0" },
        companyName: "Customer",
        addressPostal: {},
      },
    });
    customer = await new TokenService(loadKeys(t.dataDir).token).mint({ accountId: account.json.aps.id });
    const sub = await owner("POST", "/aps/2/resources", { aps: { type: SUBSCRIPTION } });
    const tr = await owner("POST", "/aps/2/resources", {
      aps: { type: `${T}/tenant/1.0` },
      account: { aps: { id: account.json.aps.id } },
      subscription: { aps: { id: sub.json.aps.id } },
    });
    expect(tr.status, tr.text).toBe(201);
    tenant = tr.json.aps.id;
    domain = (
      await owner("POST", "/aps/2/resources", {
        aps: { type: `${T}/domain/1.0` },
        name: "example.com",
        tenant: { aps: { id: tenant } },
      })
    ).json.aps.id;
  }, 60_000);
  afterAll(async () => {
    await connector?.close();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const owner = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { token: customer, ...(body === undefined ? {} : { body }) });
  const admin = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { token: t.adminToken, ...(body === undefined ? {} : { body }) });
  const subscribe = async (body: object) => {
    const r = await admin("POST", `/aps/2/resources/${tenant}/aps/subscriptions`, body);
    expect(r.status, r.text).toBe(200);
    return r.json.id as string;
  };
  const newMailbox = async (localPart: string) => {
    const m = await owner("POST", "/aps/2/resources", {
      aps: { type: `${T}/mailbox/1.0` },
      localPart,
      password: "0123456789",
      tenant: { aps: { id: tenant } },
      domain: { aps: { id: domain } },
    });
    expect(m.status, m.text).toBe(201);
    return m.json.aps.id as string;
  };
  const clear = () => received.splice(0, received.length);

  it("stores a subscription made while the subscriber was provisioned, in its transaction", async () => {
    expect(staged?.status).toBe(200);
    const list = await admin("GET", `/aps/2/resources/${tenant}/aps/subscriptions`);
    expect(list.status).toBe(200);
    expect(list.json).toEqual([
      {
        id: (staged!.body as { id: string }).id,
        event: `${E}/available`,
        source: { type: `${T}/mailbox/1.0` },
        handler: "onMailboxChanged",
      },
    ]);
    expect(list.headers["content-range"]).toBe("items 0-0/1");
  });

  it("refuses bad subscriptions with a clear error and stores none of them", async () => {
    const bad = [
      [
        { event: `${E}/changed`, source: { type: `${T}/mailbox/1.0` }, handler: "usage" },
        /POST operation of Tenant.*onMailboxChanged/,
      ],
      [{ event: `${E}/changed`, source: { type: `${T}/mailbox/1.0` }, handler: "nothing" }, /handler must name/],
      [
        { event: "not a uri", source: { type: `${T}/mailbox/1.0` }, handler: "onMailboxChanged" },
        /event must be the URI/,
      ],
      [
        { event: `${E}/changed`, source: { type: `${T}/mailbox/1.0`, id: tenant }, handler: "onMailboxChanged" },
        /either a type/,
      ],
      [{ event: `${E}/changed`, source: {}, handler: "onMailboxChanged" }, /either a type/],
      [
        { event: `${E}/changed`, source: { type: "http://nowhere/1.0" }, handler: "onMailboxChanged" },
        /not a type this controller knows/,
      ],
      [
        { event: `${E}/changed`, source: { id: "00000000-0000-0000-0000-000000000000" }, handler: "onMailboxChanged" },
        /is not a resource/,
      ],
      [
        { event: `${E}/changed`, source: { type: `${T}/tenant/1.0` }, relation: "domains", handler: "onDomainLinked" },
        /only narrows linked/,
      ],
      [
        { event: `${E}/linked`, source: { type: `${T}/tenant/1.0` }, relation: "nope", handler: "onDomainLinked" },
        /relation must be a relation of .*domains/,
      ],
      [
        {
          event: "http://parallels.com/aps/events/pa/subscription/limits/changed",
          source: { type: SUBSCRIPTION },
          handler: "onSubscriptionLimitsChanged",
        },
        /Only platform subscriptions/,
      ],
    ] as const;
    for (const [body, message] of bad) {
      const r = await admin("POST", `/aps/2/resources/${tenant}/aps/subscriptions`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.message).toMatch(message);
    }
    expect((await admin("GET", `/aps/2/resources/${tenant}/aps/subscriptions`)).json).toHaveLength(1);
    // Subscribing needs configure access on the subscriber, or its instance's certificate.
    const stranger = await new TokenService(loadKeys(t.dataDir).token).mint({
      accountId: "00000000-0000-0000-0000-000000000000",
    });
    expect((await t.call("GET", `/aps/2/resources/${tenant}/aps/subscriptions`, { token: stranger })).status).toBe(401);
    expect((await t.call("GET", `/aps/2/resources/${tenant}/aps/subscriptions`, {})).status).toBe(401);
    expect(
      (await admin("DELETE", `/aps/2/resources/${tenant}/aps/subscriptions/00000000-0000-0000-0000-000000000000`))
        .status,
    ).toBe(404);
  });

  it('issue 16 item 7: takes the Connect extension\'s subscription form (relation "", or null) as none, answered 200; item 2: DELETE .../aps/subscriptions?id= and by body', async () => {
    // Connect cbcext oaclient/__init__.py:55-66 sends "relation": "" and accepts only 200 (oaclient:208-235);
    // it signs with OAuth 1 (item 6): an admin token stands in here.
    const before = (await admin("GET", `/aps/2/resources/${tenant}/aps/subscriptions`)).json.length;
    const ids: string[] = [];
    for (const relation of ["", null]) {
      const r = await admin("POST", `/aps/2/resources/${tenant}/aps/subscriptions`, {
        event: `${E}/changed`,
        source: { type: `${T}/mailbox/1.0` },
        relation,
        handler: "onMailboxChanged",
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.relation).toBeUndefined();
      ids.push(r.json.id);
    }
    // DELETE .../aps/subscriptions (docs/aps/events.md) names the one to remove by query or body id; neither is a 400.
    expect((await admin("DELETE", `/aps/2/resources/${tenant}/aps/subscriptions`)).status).toBe(400);
    expect(
      (await admin("DELETE", `/aps/2/resources/${tenant}/aps/subscriptions?id=00000000-0000-0000-0000-000000000000`))
        .status,
    ).toBe(404);
    expect((await admin("DELETE", `/aps/2/resources/${tenant}/aps/subscriptions?id=${ids[0]}`)).status).toBe(204);
    expect((await admin("DELETE", `/aps/2/resources/${tenant}/aps/subscriptions/`, { id: ids[1] })).status).toBe(204);
    expect((await admin("GET", `/aps/2/resources/${tenant}/aps/subscriptions/`)).json).toHaveLength(before);
  });

  it("delivers each of the five core events with its fields, serials strictly increasing; a link raises them on both ends", async () => {
    clear();
    const changedSub = await subscribe({
      event: `${E}/changed`,
      source: { type: `${T}/mailbox/1.0` },
      handler: "onMailboxChanged",
    });
    const removedSub = await subscribe({
      event: `${E}/removed`,
      source: { type: `${T}/mailbox/1.0` },
      handler: "onMailboxChanged",
    });
    const linkedSub = await subscribe({
      event: `${E}/linked`,
      source: { id: tenant },
      relation: "mailboxes",
      handler: "onDomainLinked",
    });
    const unlinkedSub = await subscribe({
      event: `${E}/unlinked`,
      source: { type: `${T}/tenant/1.0` },
      handler: "onDomainLinked",
    });
    const availableSub = (staged!.body as { id: string }).id;

    // Provisioned with "tenant" in its body: the tenant hears of it as a member of "mailboxes".
    const mailbox = await newMailbox("ann");
    expect((await owner("PUT", `/aps/2/resources/${mailbox}`, { quota: 2048 })).status).toBe(200);
    // The same link made from the tenant's end: it exists already, nothing new is raised.
    expect((await owner("POST", `/aps/2/resources/${tenant}/mailboxes`, { aps: { id: mailbox } })).status).toBe(200);
    // The mailbox requires its tenant: an unlink from the tenant's end is refused, never a 204 that changes nothing.
    const refused = await owner("DELETE", `/aps/2/resources/${tenant}/mailboxes/${mailbox}`);
    expect(refused.status).toBe(409);
    expect(refused.json.message).toMatch(/required relation "tenant"/);
    // Removing the mailbox removes its link: the tenant hears "unlinked".
    expect((await owner("DELETE", `/aps/2/resources/${mailbox}`)).status).toBe(204);

    await until("five notifications", () => received.length >= 5);
    await new Promise((r) => setTimeout(r, 300));
    const byEvent = (event: string) => received.filter((r) => r.body.event === `${E}/${event}`);
    expect(received.map((r) => r.body.event).sort()).toEqual([
      `${E}/available`,
      `${E}/changed`,
      `${E}/linked`,
      `${E}/removed`,
      `${E}/unlinked`,
    ]);
    // The provisioning's two events come first (one statement), then the change, then the removal's two.
    expect(
      received
        .slice(0, 2)
        .map((r) => r.body.event)
        .sort(),
    ).toEqual([`${E}/available`, `${E}/linked`]);
    expect(received[2]!.body.event).toBe(`${E}/changed`);
    expect(byEvent("available")[0]!.body.subscription).toBe(availableSub);
    expect(byEvent("changed")[0]!.body.subscription).toBe(changedSub);
    expect(byEvent("linked")[0]!.body.subscription).toBe(linkedSub);
    expect(byEvent("unlinked")[0]!.body.subscription).toBe(unlinkedSub);
    expect(byEvent("removed")[0]!.body.subscription).toBe(removedSub);
    for (const r of received) {
      expect(r.subscriber).toBe(tenant);
      expect(r.body.type).toBe(r.body.event);
      expect(Date.now() - Date.parse(r.body.time!)).toBeLessThan(60_000);
      expect(Number.isSafeInteger(r.body.serial)).toBe(true);
    }
    const serials = received.map((r) => Number(r.body.serial));
    for (let i = 1; i < serials.length; i++) expect(serials[i]).toBeGreaterThan(serials[i - 1]!);
    expect(byEvent("available")[0]!.body.source).toEqual({ id: mailbox, type: `${T}/mailbox/1.0` });
    expect(byEvent("linked")[0]!.body).toMatchObject({
      source: { id: tenant, type: `${T}/tenant/1.0` },
      relation: "mailboxes",
      target: { id: mailbox },
    });
    expect(byEvent("unlinked")[0]!.body).toMatchObject({
      source: { id: tenant, type: `${T}/tenant/1.0` },
      relation: "mailboxes",
      target: { id: mailbox },
    });
    expect(byEvent("removed")[0]!.body.source).toEqual({ id: mailbox, type: `${T}/mailbox/1.0` });
    expect(byEvent("available")[0]!.handler).toBe("onMailboxChanged");
    expect(byEvent("linked")[0]!.handler).toBe("onDomainLinked");
    expect((await admin("GET", "/aps/2/events/pending")).json).toEqual([]);

    for (const id of [changedSub, removedSub, linkedSub, unlinkedSub])
      expect((await admin("DELETE", `/aps/2/resources/${tenant}/aps/subscriptions/${id}`)).status).toBe(204);
    expect((await admin("GET", `/aps/2/resources/${tenant}/aps/subscriptions`)).json).toHaveLength(1);
  });

  it("subscribes by id: only that resource's events arrive", async () => {
    clear();
    const a = await newMailbox("bea");
    const b = await newMailbox("cid");
    await until("two available", () => received.length >= 2);
    clear();
    const byId = await subscribe({ event: `${E}/changed`, source: { id: b }, handler: "onMailboxChanged" });
    expect((await owner("PUT", `/aps/2/resources/${a}`, { quota: 1 })).status).toBe(200);
    expect((await owner("PUT", `/aps/2/resources/${b}`, { quota: 2 })).status).toBe(200);
    await until("the change of b", () => received.length >= 1);
    await new Promise((r) => setTimeout(r, 400));
    expect(received.map((r) => [r.body.source?.id, r.body.subscription])).toEqual([[b, byId]]);
    await admin("DELETE", `/aps/2/resources/${tenant}/aps/subscriptions/${byId}`);
  });

  it("lists every subscription of every subscriber at /aps/2/events/subscriptions, for provider administrators only", async () => {
    const own = (await admin("GET", `/aps/2/resources/${tenant}/aps/subscriptions`)).json as { id: string }[];
    const byType = await subscribe({
      event: `${E}/changed`,
      source: { type: `${T}/domain/1.0` },
      handler: "onMailboxChanged",
    });
    const reply = await t.request("/aps/2/events/subscriptions");
    expect(reply.status).toBe(200);
    const all = (await reply.json()) as { id: string; subscriber: string; created: string; source: unknown }[];
    // Every subscription the tenant holds is there, each with its subscriber and when it was made.
    for (const s of [...own.map((o) => o.id), byType])
      expect(all.find((a) => a.id === s)).toMatchObject({ subscriber: tenant });
    expect(all.find((a) => a.id === byType)).toMatchObject({
      event: `${E}/changed`,
      source: { type: `${T}/domain/1.0` },
      handler: "onMailboxChanged",
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    const [{ n }] = (await t.sql("select count(*)::int as n from subscriptions")) as [{ n: number }];
    expect(reply.headers.get("content-range")).toBe(`items 0-${n - 1}/${n}`);
    // Oldest first.
    const times = all.map((a) => a.created);
    expect(times).toEqual([...times].sort());
    // A customer, even the one owning the subscriber, sees only its own subscriber's list.
    expect((await owner("GET", "/aps/2/events/subscriptions")).status).toBe(403);
    await admin("DELETE", `/aps/2/resources/${tenant}/aps/subscriptions/${byType}`);
    const after = (await admin("GET", "/aps/2/events/subscriptions")).json as { id: string }[];
    expect(after.map((a) => a.id)).not.toContain(byType);
  });

  it("keeps every notification while the endpoint is down and delivers them in order when it is back", async () => {
    // The source is platform-served (the customer's subscription), so it changes while the endpoint is down.
    const subscription = (await owner("GET", `/aps/2/resources/${tenant}`)).json.subscription.aps.id;
    const sub = await subscribe({
      event: `${E}/changed`,
      source: { type: SUBSCRIPTION },
      handler: "onSubscriptionLimitsChanged",
    });
    clear();
    await connector.close();
    for (let n = 1; n <= 5; n++)
      expect((await owner("PUT", `/aps/2/resources/${subscription}`, { name: `plan ${n}` })).status).toBe(200);
    // Down for a while: several delivery attempts fail.
    await new Promise((r) => setTimeout(r, 1200));
    const pending = (await admin("GET", "/aps/2/events/pending")).json as { attempts: number; lastError: string }[];
    expect(pending).toHaveLength(5);
    expect(pending[0]!.attempts).toBeGreaterThan(0);
    expect(pending[0]!.lastError).toMatch(/cannot be reached|ECONNREFUSED/);
    connector = await startConnector(app, { ...endpoint, port: connector.port });
    await until("all five", () => received.length >= 5, 20_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(received).toHaveLength(5);
    const serials = received.map((r) => Number(r.body.serial));
    expect([...serials].sort((x, y) => x - y)).toEqual(serials);
    expect(new Set(serials).size).toBe(5);
    expect(
      received.every((r) => r.body.source?.id === subscription && r.handler === "onSubscriptionLimitsChanged"),
    ).toBe(true);
    await admin("DELETE", `/aps/2/resources/${tenant}/aps/subscriptions/${sub}`);
  }, 40_000);

  it("retries a 202 later, and puts a handler that keeps failing in the dead-letter list; replay delivers it", async () => {
    const sub = await subscribe({
      event: `${E}/linked`,
      source: { type: `${T}/tenant/1.0` },
      handler: "onDomainLinked",
    });
    clear();
    domainFailure = new ConnectorError(500, "the handler is broken");
    acceptOnce = true;
    const mailbox = await newMailbox("eve");
    await until("available of eve", () => received.some((r) => r.body.source?.id === mailbox));
    expect((await owner("POST", `/aps/2/resources/${tenant}/mailboxes`, { aps: { id: mailbox } })).status).toBe(200);
    const dead = await until(
      "a dead letter",
      async () => {
        const list = (await admin("GET", "/aps/2/events/dead")).json as {
          id: number;
          attempts: number;
          lastError: string;
          event: string;
          subscription: string;
        }[];
        return list.length ? list : undefined;
      },
      20_000,
    );
    // The 202 came first and was not counted as a failure: six failures after it.
    expect(acceptedAt).toBeGreaterThan(0);
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ event: `${E}/linked`, subscription: sub, attempts: 6 });
    expect(dead[0]!.lastError).toMatch(/answered 500.*the handler is broken/);
    expect(received.some((r) => r.handler === "onDomainLinked")).toBe(false);
    // A customer cannot see or replay dead letters.
    expect((await owner("GET", "/aps/2/events/dead")).status).toBe(403);
    expect((await admin("POST", "/aps/2/events/dead/999999/replay")).status).toBe(404);

    domainFailure = undefined;
    expect((await admin("POST", `/aps/2/events/dead/${dead[0]!.id}/replay`)).json).toEqual({ replayed: 1 });
    const got = await until("the replayed notification", () => received.find((r) => r.handler === "onDomainLinked"));
    expect(got.body).toMatchObject({
      event: `${E}/linked`,
      relation: "mailboxes",
      target: { id: mailbox },
      subscription: sub,
    });
    expect((await admin("GET", "/aps/2/events/dead")).json).toEqual([]);
    await admin("DELETE", `/aps/2/resources/${tenant}/aps/subscriptions/${sub}`);
  }, 40_000);

  it("raises limits/changed when a limit of a tracked platform subscription changes, and only then", async () => {
    const PA = "http://parallels.com/aps/types/pa/subscription/1.0";
    const LIMITS = "http://parallels.com/aps/events/pa/subscription/limits/changed";
    const account = (await owner("GET", `/aps/2/resources/${tenant}`)).json.account.aps.id;
    const pa = await owner("POST", "/aps/2/resources", {
      aps: { type: PA },
      subscriptionId: 1000016,
      serviceTemplateId: 7,
      account: { aps: { id: account } },
      activationStructure: { subscriptionResourceLimits: [{ resourceId: 1, resourceLimit: 10 }] },
    });
    expect(pa.status, pa.text).toBe(201);
    const id = pa.json.aps.id;
    // Only platform subscriptions can be the source of this event... by type, or by id.
    const sub = await subscribe({ event: LIMITS, source: { id }, handler: "onSubscriptionLimitsChanged" });
    clear();
    expect((await owner("PUT", `/aps/2/resources/${id}`, { name: "renamed" })).status).toBe(200);
    expect(
      (
        await owner("PUT", `/aps/2/resources/${id}`, {
          activationStructure: { subscriptionResourceLimits: [{ resourceId: 1, resourceLimit: 20 }] },
        })
      ).status,
    ).toBe(200);
    await until("limits/changed", () => received.length >= 1);
    await new Promise((r) => setTimeout(r, 400));
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      handler: "onSubscriptionLimitsChanged",
      body: { event: LIMITS, subscription: sub, source: { id, type: PA } },
    });
    await admin("DELETE", `/aps/2/resources/${tenant}/aps/subscriptions/${sub}`);
  });

  it("lets the instance subscribe with its certificate, and refuses another instance's resources", async () => {
    const instanceId = (await admin("GET", "/aps/2/instances")).json[0].id;
    const app = controllerClient({
      controllerUri: t.controller.url,
      credentials: (await credentials.load(instanceId))!,
    });
    const r = await app.post(`/aps/2/resources/${tenant}/aps/subscriptions`, {
      event: `${E}/removed`,
      source: { type: `${T}/domain/1.0` },
      handler: "onDomainLinked",
    });
    expect(r.status).toBe(200);
    expect((await app.get(`/aps/2/resources/${tenant}/aps/subscriptions`)).body).toContainEqual(r.body);
    expect(
      (await app.delete(`/aps/2/resources/${tenant}/aps/subscriptions/${(r.body as { id: string }).id}`)).status,
    ).toBe(204);
    // The customer's account is not a resource of the instance.
    const account = (await owner("GET", `/aps/2/resources/${tenant}`)).json.account.aps.id;
    expect((await app.get(`/aps/2/resources/${account}/aps/subscriptions`)).status).toBe(404);
    const foreign = controllerClient({
      controllerUri: t.controller.url,
      credentials: { certAndKey: endpoint.cert + endpoint.key, controllerCa: t.controller.caCert },
    });
    expect((await foreign.get(`/aps/2/resources/${tenant}/aps/subscriptions`)).status).toBe(401);
  });

  // Last: the tenants made here subscribe to mailbox events too.
  it.runIf(kind === "postgres")(
    "takes a subscription made through another controller process during the provisioning, and drops it when the provisioning fails",
    async () => {
      const other = await t.second();
      const newTenant = async () => {
        const account = (await owner("GET", `/aps/2/resources/${tenant}`)).json.account.aps.id;
        const sub = await owner("POST", "/aps/2/resources", { aps: { type: SUBSCRIPTION } });
        return owner("POST", "/aps/2/resources", {
          aps: { type: `${T}/tenant/1.0` },
          account: { aps: { id: account } },
          subscription: { aps: { id: sub.json.aps.id } },
        });
      };
      const made: string[] = [];
      try {
        // The application's call-back reaches a process that does not run the provisioning.
        callbackUri = other.url;
        const tr = await newTenant();
        expect(tr.status, tr.text).toBe(201);
        made.push(tr.json.aps.id);
        expect(staged?.status, JSON.stringify(staged?.body)).toBe(200);
        const id = (staged!.body as { id: string }).id;
        for (const call of [t.call, other.call]) {
          expect(
            (await call("GET", `/aps/2/resources/${tr.json.aps.id}/aps/subscriptions`, { token: t.adminToken })).json,
          ).toEqual([
            { id, event: `${E}/available`, source: { type: `${T}/mailbox/1.0` }, handler: "onMailboxChanged" },
          ]);
        }
        // Subscribed, then refused: nothing of it stays, staged or stored.
        refuseTenant = true;
        staged = undefined;
        const refused = await newTenant();
        expect(refused.status).toBe(500);
        const subscribed = staged as { status: number; body: { id: string } } | undefined;
        expect(subscribed?.status).toBe(200);
        const lost = subscribed!.body.id;
        expect(await t.sql(`select count(*)::int as n from subscriptions where id = '${lost}'`)).toEqual([{ n: 0 }]);
        expect(await t.sql("select count(*)::int as n from staged_subscriptions")).toEqual([{ n: 0 }]);
        // An id the controller did not issue names no provisioning: the resource is simply not there.
        const instanceId = (await admin("GET", "/aps/2/instances")).json[0].id;
        const app = controllerClient({
          controllerUri: other.url,
          credentials: (await credentials.load(instanceId))!,
          transactionId: "made-up.transaction",
        });
        expect(
          (
            await app.post(`/aps/2/resources/${randomUUID()}/aps/subscriptions`, {
              event: `${E}/available`,
              source: { type: `${T}/mailbox/1.0` },
              handler: "onMailboxChanged",
            })
          ).status,
        ).toBe(404);
      } finally {
        callbackUri = undefined;
        refuseTenant = false;
        for (const id of made)
          for (const s of (await admin("GET", `/aps/2/resources/${id}/aps/subscriptions`)).json as { id: string }[])
            await admin("DELETE", `/aps/2/resources/${id}/aps/subscriptions/${s.id}`);
        await other.close();
      }
    },
  );
});
