/**
 * Issue 27: the life of roluch/fallball-connector against the controller, in the bodies its source
 * reads and the calls it makes back. The endpoint below plays the connector: each handler checks
 * and reads what the connector's handler checks and reads (file:line on each, in
 * connector/v1/resources/), and calls the controller as the connector's `OA` helper does
 * (`__init__.py:160-213`: relative `aps/2/...` paths, `aps-transaction-id` echoed, only 200 taken),
 * here with the instance certificate (FallBall signs with OAuth 1.0a: oauth.test.ts covers that).
 * The package is test/fixtures/controller/fallball (written for these tests from the connector's
 * routes and reads). The whole connector, unmodified, was run by hand: docs/platform-compatibility.md.
 *
 * One liberty: the connector answers its first 202 with `Aps-Info` only, so the platform's default
 * retry applies; here it also sends `Aps-Retry-Timeout: 1` so the test does not wait 30 s.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databases, startControllerUnderTest, type ControllerUnderTest } from "../e2e/controller-harness.ts";
import {
  credentialsOf,
  startFakeApplication,
  type Answer,
  type FakeApplication,
  type ReceivedCall,
} from "../e2e/fake-application.ts";
import { httpsClient, type HttpReply } from "../helpers/https-client.ts";
import { until } from "../helpers/until.ts";

const FB = "http://fallball.io/types";
const PA = "http://parallels.com/aps/types/pa";
const CORE_EVENTS = "http://aps-standard.org/core/events";
const MANAGER = "http://www.parallels.com/pa/pa-core-services/notification-manager/1";

type Body = Record<string, any>;

/** A call the connector made to the controller, with what it got. */
interface OaCall {
  readonly during: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly json: any;
}

describe.each(databases)("the FallBall connector's life on %s", (kind) => {
  let t: ControllerUnderTest;
  let fb: FakeApplication;
  let oa: ReturnType<typeof httpsClient>;
  const dir = mkdtempSync(join(tmpdir(), "aps-fallball-life-"));
  const oaCalls: OaCall[] = [];
  /** FallBall's own state: companies by tenant id, users by user-service id. */
  const companies = new Map<string, { name: string; users: Set<string> }>();
  const fbUsers = new Map<string, string>();
  let account = "";
  let subscription = "";
  let serviceUser = "";
  let secondUser = "";
  const admin = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { token: t.adminToken, ...(body === undefined ? {} : { body }) });

  /** `OA.send_request` (__init__.py:160-213): relative path, JSON, the transaction echoed when asked; only 200 is a success. */
  async function send(
    call: ReceivedCall,
    method: string,
    path: string,
    body?: unknown,
    transaction = true,
  ): Promise<any> {
    const tx = call.headers["aps-transaction-id"];
    const reply: HttpReply = await oa(method, path, {
      ...(body === undefined ? {} : { body }),
      headers: {
        "content-type": "application/json",
        ...(transaction && typeof tx === "string" ? { "aps-transaction-id": tx } : {}),
      },
    });
    oaCalls.push({ during: `${call.method} ${call.path}`, method, path, status: reply.status, json: reply.json });
    if (reply.status !== 200) throw new Error(`OA answered ${reply.status} to ${method} ${path}: ${reply.text}`);
    return reply.json;
  }

  /** flask-restful's reqparse with `parameter_validator` (tenant.py:51-79): a missing member is a 400 naming it. */
  function missing(body: Body, member: string, help: string): Answer | undefined {
    const path = member.split(".");
    let v: any = body;
    for (const p of path) v = v?.[p];
    return v === undefined ? { status: 400, body: { message: { [path[0]!]: help } } } : undefined;
  }

  /** `build_usage` (tenant.py:133-167): usage only, for the counters the tenant's type declares. */
  async function usage(call: ReceivedCall, tenantId: string): Promise<Body> {
    const services = await send(call, "get", "aps/2/application", undefined, false);
    const schema = await send(call, "get", services.tenant.schema, undefined, false);
    const counters = Object.entries(schema.properties as Record<string, { type: string }>)
      .filter(([, p]) => p.type.includes("Counter"))
      .map(([n]) => n);
    const users = companies.get(tenantId)?.users.size ?? 0;
    return Object.fromEntries(counters.map((c) => [c, { usage: c === "USERS" ? users : 0 }]));
  }

  /** `provision_fallball_client` (tenant.py:179-241), from the body `get_tenant_args` parsed. */
  async function provisionClient(call: ReceivedCall, body: Body): Promise<Answer> {
    const company = await send(call, "get", `aps/2/resources/${body.account.aps.id}`);
    const adminEmail: string = company.techContact.email;
    const postalCode: string = body.accountInfo?.addressPostal?.postalCode ?? company.addressPostal.postalCode;
    const subscriptionId = (await send(call, "get", `aps/2/resources/${body.aps.subscription}`)).subscriptionId;
    const name = `${String(company.companyName).replace(/\s+/g, "-")}-sub${subscriptionId}`;
    // The stand-in for the FallBall API refuses postal codes of Alaska (analyze_service_error, tenant.py:82-130).
    if (postalCode.startsWith("999")) {
      return {
        status: 202,
        headers: { "aps-info": "Additional information required to complete provisioning", "aps-retry-timeout": "1" },
        body: {
          accountInfo: { addressPostal: { postalCode } },
          status: "activationRequired",
          statusData: {
            code: "ActivationData",
            messages: [{ type: "error", text: "Please provide additional information" }],
            perPropertyData: [{ propertyName: "accountInfo.addressPostal.postalCode", pattern: "(\\d{5})" }],
          },
        },
      };
    }
    expect(adminEmail).toContain("@");
    companies.set(body.aps.id, { name, users: new Set() });
    for (const event of ["linked", "unlinked"]) {
      await send(call, "post", `aps/2/resources/${body.aps.id}/aps/subscriptions`, {
        event: `${CORE_EVENTS}/${event}`,
        source: { type: body.aps.type },
        relation: "users",
        handler: "onUsersChange",
      });
    }
    return {
      status: 201,
      body: {
        tenantId: name,
        status: body.status ? "reprovisioned" : "",
        statusData: { messages: [], perPropertyData: [] },
        ...(await usage(call, body.aps.id)),
      },
    };
  }

  /** `OA.send_notification` (__init__.py:108-136). */
  async function notify(call: ReceivedCall, message: string, to: { accountId?: string; userId?: string }) {
    const manager = (
      await send(call, "get", `aps/2/resources?implementing(${encodeURIComponent(MANAGER)})`, undefined, false)
    )[0].aps.id;
    await send(
      call,
      "post",
      `aps/2/resources/${manager}/notifications`,
      { status: "ready", message: { message }, ...to },
      false,
    );
  }

  /** The connector's routes (__init__.py:114-136). */
  async function connector(call: ReceivedCall): Promise<Answer> {
    const body = (call.body ?? {}) as Body;
    const [, service, id, sub] = call.path.split("?")[0]!.split("/");
    const phase = call.headers["aps-request-phase"];
    if (service === "app") {
      if (!id)
        return (
          missing(body, "aps.type", "No APS type specified") ??
          missing(body, "aps.id", "No APS id specified") ?? { status: 201, body: { aps: body.aps, appId: "fb-app" } }
        );
      return call.method === "DELETE" && !sub ? { status: 204 } : { status: 200, body: {} };
    }
    if (service === "tenant" && !id && call.method === "POST") {
      // TenantList.post (tenant.py:256-268) after get_tenant_args (tenant.py:51-79).
      const refused =
        missing(body, "aps.id", "Missing aps.id in request") ??
        missing(body, "aps.subscription", "Missing aps.subscription in request") ??
        missing(body, "aps.type", "Missing aps.type in request") ??
        missing(body, "account.aps.id", "Missing link to account in request");
      if (refused) return refused;
      if (body.status === "reprovisioned") return { status: 201, body: {} };
      if (phase === "async" && body.status !== "error")
        return {
          status: 202,
          headers: { "aps-info": "Additional information required to complete provisioning", "aps-retry-timeout": "1" },
          body: {},
        };
      return provisionClient(call, body);
    }
    if (service === "tenant" && id) {
      const own = await send(call, "get", `aps/2/resources/${id}`);
      if (!sub && call.method === "PUT") return { status: 200, body: {} }; // Tenant.put reads only DISKSPACE.limit (tenant.py:277-290)
      if (!sub && call.method === "DELETE")
        return companies.delete(id) ? { status: 204 } : { status: 404, body: { message: "no such company" } };
      if (sub === "disable" || sub === "enable") return { status: 200, body: {} };
      if (sub === "adminlogin")
        return { status: 200, body: { redirectUrl: `https://fallball.example/#/auth?company=${own.tenantId}` } };
      if (sub === "users") return { status: 200, body: {} }; // TenantUserCreated / TenantUserRemoved
      if (sub === "onUsersChange") {
        // TenantOnUsersChange (tenant.py:337-344): usage to the controller, then a notification to the account.
        await send(call, "put", `aps/2/application/tenant/${id}`, await usage(call, id));
        const accountId = (await send(call, "get", `/aps/2/resources/${id}/account`))[0].aps.id;
        await notify(call, "Usage updated", { accountId });
        return { status: 200, body: {} };
      }
      if (sub === "reprovision") {
        // TenantReprovision (tenant.py:354-378).
        if (own.aps.status !== "aps:provisioning" || own.status === "reprovisioned")
          return { status: 400, body: { error: "Cannot provision already provisioned client" } };
        const result = await provisionClient(call, body);
        const update =
          result.status === 201
            ? { accountInfo: body.accountInfo, status: "reprovisioned", statusData: {}, ...(result.body as Body) }
            : (result.body as Body);
        await send(call, "PUT", `/aps/2/application/tenant/${id}`, update);
        return { status: 200, body: {} };
      }
      return { status: 404, body: { message: `no route ${call.path}` } };
    }
    if (service === "user" && !id && call.method === "POST") {
      // UserList.post (user.py:17-54).
      const refused =
        missing(body, "aps.type", "Missing aps.type in request") ??
        missing(body, "tenant.aps.id", "Missing tenant in request") ??
        missing(body, "user.aps.id", "Missing aps.id in request");
      if (refused) return refused;
      await send(call, "get", `aps/2/resources/${body.tenant.aps.id}`);
      const oaUser = await send(call, "get", `aps/2/resources/${body.user.aps.id}`);
      expect(typeof oaUser.isAccountAdmin).toBe("boolean");
      const email = oaUser.email ?? oaUser.login;
      companies.get(body.tenant.aps.id)?.users.add(body.aps.id);
      fbUsers.set(body.aps.id, email);
      await notify(call, "Fallball assigned to user", { userId: oaUser.aps.id });
      return { status: 201, body: { userId: email } };
    }
    if (service === "user" && id) {
      const own = await send(call, "get", `aps/2/resources/${id}`);
      if (sub === "userlogin")
        return { status: 200, body: { redirectUrl: `https://fallball.example/#/auth?user=${own.userId}` } };
      // The service user through the relation, with the properties the notification names (user.py:64, :125, :131).
      const oaUser = (await send(call, "get", `/aps/2/resources/${id}/user`))[0];
      if (typeof oaUser.displayName !== "string")
        throw new Error(`KeyError: 'displayName' in ${JSON.stringify(oaUser)}`);
      if (call.method === "DELETE") {
        companies.get(own.tenant.aps.id)?.users.delete(id);
        fbUsers.delete(id);
        await notify(call, "Fallball unassigned from user", { userId: oaUser.aps.id });
        return { status: 204 };
      }
      const tenantId = (await send(call, "get", `/aps/2/resources/${id}/tenant`))[0].aps.id;
      await send(call, "put", `aps/2/application/tenant/${tenantId}`, await usage(call, tenantId));
      return { status: 200, body: {} };
    }
    return { status: 404, body: { message: `no route ${call.path}` } };
  }

  beforeAll(async () => {
    t = await startControllerUnderTest(kind, ["test/fixtures/controller/fallball"], {
      endpointTimeoutMs: 10_000,
      eventDelivery: { idleMs: 50 },
    });
    fb = await startFakeApplication(join(dir, "fallball"));
    fb.answer = async (call) => {
      try {
        return await connector(call);
      } catch (error) {
        // FallballApi.handle_error (__init__.py:139-144).
        return { status: 500, body: { message: (error as Error).message, error: "OACommunicationException" } };
      }
    };
    const packages = (await admin("GET", "/aps/2/packages")).json as { id: string; slug: string }[];
    const installed = await admin("POST", "/aps/2/instances", {
      package: packages.find((p) => p.slug === "fallball")!.id,
      endpoint: fb.url,
      endpointCa: fb.ca,
    });
    expect(installed.status, installed.text).toBe(201);
    oa = httpsClient(`${t.controller.url}/`, t.controller.caCert, credentialsOf(fb));
    // The customer as the platform has it: a PA account with its technical contact, a subscription, two service users.
    const a = await admin("POST", "/aps/2/resources", {
      aps: { type: `${PA}/account/1.2` },
      id: 1000005,
      type: "CLIENT",
      companyName: "Davis and Sons",
      addressPostal: { postalCode: "12345" },
      techContact: { email: "tech@davis.example" },
    });
    expect(a.status, a.text).toBe(201);
    account = a.json.aps.id;
    const s = await admin("POST", "/aps/2/resources", {
      aps: { type: `${PA}/subscription/1.0` },
      subscriptionId: 446,
      serviceTemplateId: 7,
      name: "FallBall",
      account: { aps: { id: account } },
    });
    expect(s.status, s.text).toBe(201);
    subscription = s.json.aps.id;
    for (const login of ["ann@davis.example", "bob@davis.example"]) {
      const u = await admin("POST", "/aps/2/resources", {
        aps: { type: `${PA}/service-user/1.2` },
        login,
        email: login,
        displayName: login,
        isAccountAdmin: login.startsWith("ann"),
        servicesMode: "NONE",
        organization: { aps: { id: account } },
      });
      expect(u.status, u.text).toBe(201);
      if (login.startsWith("ann")) serviceUser = u.json.aps.id;
      else secondUser = u.json.aps.id;
    }
  }, 120_000);
  afterAll(async () => {
    await fb?.close();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  let tenant = "";

  it("provisions a tenant: the body carries aps.status and aps.subscription, the connector reads the account and the subscription during the call, and its usage merges into the limits", async () => {
    oaCalls.length = 0;
    const r = await admin("POST", "/aps/2/resources", {
      aps: { type: `${FB}/tenant/1.0` },
      account: { aps: { id: account } },
      subscription: { aps: { id: subscription } },
      accountInfo: { addressPostal: { postalCode: "12345" } },
      DISKSPACE: { limit: 100 },
      USERS: { limit: 10 },
    });
    expect(r.status, r.text).toBe(201);
    tenant = r.json.aps.id;
    const sent = fb.calls.find((c) => c.method === "POST" && c.path === "/tenant")!.body as Body;
    expect(sent.aps).toMatchObject({
      id: tenant,
      type: `${FB}/tenant/1.0`,
      status: "aps:provisioning",
      subscription,
      revision: 1,
    });
    expect(sent).toMatchObject({
      account: { aps: { id: account } },
      subscription: { aps: { id: subscription } },
      DISKSPACE: { limit: 100 },
    });
    // Every read and the subscriptions during the call answered 200 (send() throws otherwise).
    expect(oaCalls.map((c) => `${c.method} ${c.path.split("?")[0]} ${c.status}`)).toEqual([
      `get aps/2/resources/${account} 200`,
      `get aps/2/resources/${subscription} 200`,
      `post aps/2/resources/${tenant}/aps/subscriptions 200`,
      `post aps/2/resources/${tenant}/aps/subscriptions 200`,
      "get aps/2/application 200",
      `get /aps/2/types/${encodeURIComponent(`${FB}/tenant/1.0`)} 200`,
    ]);
    expect(oaCalls[0]!.json).toMatchObject({
      companyName: "Davis and Sons",
      techContact: { email: "tech@davis.example" },
      addressPostal: { postalCode: "12345" },
    });
    expect(oaCalls[1]!.json.subscriptionId).toBe(446);
    // The usage the connector returned joined the customer's limits; nothing it did not send was lost.
    expect(r.json).toMatchObject({
      tenantId: "Davis-and-Sons-sub446",
      DISKSPACE: { limit: 100, usage: 0 },
      USERS: { limit: 10, usage: 0 },
      DEVICES: { usage: 0 },
    });
    expect(r.json.aps).toMatchObject({ status: "aps:ready", subscription });
    // After the call, the same reads still answer (the tenant is linked now).
    expect((await oa("GET", `aps/2/resources/${account}`)).json.companyName).toBe("Davis and Sons");
    expect((await oa("GET", `aps/2/resources/${subscription}`)).status).toBe(200);
  });

  it("lets the application read only what it reaches", async () => {
    const stranger = await admin("POST", "/aps/2/resources", {
      aps: { type: `${PA}/account/1.2` },
      id: 1000099,
      type: "CLIENT",
      companyName: "Stranger",
      addressPostal: { postalCode: "1" },
    });
    expect((await oa("GET", `aps/2/resources/${stranger.json.aps.id}`)).status).toBe(404);
  });

  it("takes aps.subscription from the body, refuses one that is not a subscription or disagrees with the link, and a failed provisioning leaves the application nothing it reached", async () => {
    const acc = (
      await admin("POST", "/aps/2/resources", {
        aps: { type: `${PA}/account/1.2` },
        id: 1000098,
        type: "CLIENT",
        companyName: "Gone Ltd",
        addressPostal: { postalCode: "55555" },
        techContact: { email: "tech@gone.example" },
      })
    ).json.aps.id as string;
    const sub = (
      await admin("POST", "/aps/2/resources", {
        aps: { type: `${PA}/subscription/1.0` },
        subscriptionId: 448,
        serviceTemplateId: 7,
        name: "FallBall",
        account: { aps: { id: acc } },
      })
    ).json.aps.id as string;
    const tenantBody = (aps: Record<string, unknown>) => ({
      aps: { type: `${FB}/tenant/1.0`, ...aps },
      account: { aps: { id: acc } },
      subscription: { aps: { id: sub } },
      accountInfo: {},
      DISKSPACE: { limit: 1 },
    });
    const notSubscription = await admin("POST", "/aps/2/resources", tenantBody({ subscription: acc }));
    expect(notSubscription.status).toBe(400);
    expect(notSubscription.json.message).toMatch(/aps\.subscription names .* not a subscription/);
    const disagrees = await admin("POST", "/aps/2/resources", tenantBody({ subscription }));
    expect(disagrees.status).toBe(400);
    expect(disagrees.json.message).toMatch(/differ/);
    // The connector reads the account during the call, then FallBall fails: nothing is stored, and the reach goes with the provisioning.
    const connectorAsItIs = fb.answer;
    oaCalls.length = 0;
    fb.answer = async (call) => {
      if (call.method !== "POST" || call.path !== "/tenant") return connectorAsItIs(call);
      await send(call, "get", `aps/2/resources/${acc}`);
      return { status: 500, body: { message: "FallBall is down", error: "HttpServerError" } };
    };
    try {
      const failed = await admin("POST", "/aps/2/resources", tenantBody({ subscription: sub }));
      expect(failed.status).toBe(500);
      expect(failed.json.message).toBe("FallBall is down");
    } finally {
      fb.answer = connectorAsItIs;
    }
    expect(oaCalls.map((c) => c.status)).toEqual([200]);
    expect((await oa("GET", `aps/2/resources/${acc}`)).status).toBe(404);
    expect((await oa("GET", `aps/2/resources/${sub}`)).status).toBe(404);
  });

  it("provisions users from either end: the connector reads the service user, and the tenant hears one linked event per user and one unlinked on removal", async () => {
    const handled = () => fb.calls.filter((c) => c.path === `/tenant/${tenant}/onUsersChange`);
    oaCalls.length = 0;
    // Through the body's link to the tenant (user.py:17-54 reads tenant, user and resource).
    const u1 = await admin("POST", "/aps/2/resources", {
      aps: { type: `${FB}/user/1.0` },
      tenant: { aps: { id: tenant } },
      user: { aps: { id: serviceUser } },
      resource: "USERS",
    });
    expect(u1.status, u1.text).toBe(201);
    expect(u1.json.userId).toBe("ann@davis.example");
    // A user's service belongs to its tenant's subscription (its required link).
    expect(u1.json.aps.subscription).toBe(subscription);
    expect(oaCalls.find((c) => c.path === `aps/2/resources/${serviceUser}`)).toMatchObject({
      status: 200,
      json: { isAccountAdmin: true, email: "ann@davis.example" },
    });
    // Through the tenant's collection.
    const u2 = await admin("POST", `/aps/2/resources/${tenant}/users`, {
      aps: { type: `${FB}/user/1.0` },
      user: { aps: { id: secondUser } },
      resource: "USERS",
    });
    expect(u2.status, u2.text).toBe(201);
    await until("two onUsersChange", () => handled().length >= 2);
    await new Promise((r) => setTimeout(r, 500));
    expect(handled().map((c) => [c.body!.event, c.body!.relation, (c.body!.target as { id: string }).id])).toEqual([
      [`${CORE_EVENTS}/linked`, "users", u1.json.aps.id],
      [`${CORE_EVENTS}/linked`, "users", u2.json.aps.id],
    ]);
    // The handler reported usage through the application's own PUT: USERS usage 2, its limit kept.
    await until("usage 2", async () => (await admin("GET", `/aps/2/resources/${tenant}`)).json.USERS?.usage === 2);
    expect((await admin("GET", `/aps/2/resources/${tenant}`)).json.USERS).toEqual({ limit: 10, usage: 2 });
    // Unprovisioning a user is an unlink for the tenant.
    expect((await admin("DELETE", `/aps/2/resources/${u2.json.aps.id}`)).status).toBe(204);
    await until("unlinked", () => handled().length >= 3);
    expect(handled()[2]!.body).toMatchObject({
      event: `${CORE_EVENTS}/unlinked`,
      relation: "users",
      target: { id: u2.json.aps.id },
    });
    await until("usage 1", async () => (await admin("GET", `/aps/2/resources/${tenant}`)).json.USERS?.usage === 1);
    // The connector's notifications reached the notification manager.
    const manager = (await admin("GET", `/aps/2/resources?implementing(${encodeURIComponent(MANAGER)})`)).json[0].aps
      .id;
    const notes = (await admin("GET", `/aps/2/resources/${manager}/notifications`)).json as {
      message: { message: string };
      accountId?: string;
    }[];
    expect(notes.map((n) => n.message.message)).toEqual(
      expect.arrayContaining(["Fallball assigned to user", "Usage updated", "Fallball unassigned from user"]),
    );
    expect(notes.find((n) => n.message.message === "Usage updated")!.accountId).toBe(account);
  });

  it("configures: the connector gets the whole tenant, and a new limit keeps the usage beside it", async () => {
    const r = await admin("PUT", `/aps/2/resources/${tenant}`, { DISKSPACE: { limit: 200 } });
    expect(r.status, r.text).toBe(200);
    const sent = fb.calls.filter((c) => c.method === "PUT" && c.path === `/tenant/${tenant}`).at(-1)!.body as Body;
    expect(sent.aps).toMatchObject({ id: tenant, type: `${FB}/tenant/1.0`, subscription, status: "aps:ready" });
    expect(sent).toMatchObject({
      DISKSPACE: { limit: 200, usage: 0 },
      USERS: { limit: 10, usage: 1 },
      tenantId: "Davis-and-Sons-sub446",
      account: { aps: { id: account } },
    });
    expect(r.json.DISKSPACE).toEqual({ limit: 200, usage: 0 });
  });

  it("answers login links, disable and enable through the connector", async () => {
    const login = await admin("GET", `/aps/2/resources/${tenant}/adminlogin`);
    expect(login.status, login.text).toBe(200);
    expect(login.json.redirectUrl).toContain("Davis-and-Sons-sub446");
    const user = (await admin("GET", `/aps/2/resources/${tenant}/users`)).json[0].aps.id;
    expect((await admin("GET", `/aps/2/resources/${user}/userlogin`)).json.redirectUrl).toContain("ann@davis.example");
    expect((await admin("PUT", `/aps/2/resources/${tenant}/disable`)).status).toBe(200);
    expect((await admin("GET", `/aps/2/resources/${tenant}`)).json.aps.status).toBe("aps:disabled");
    expect((await admin("PUT", `/aps/2/resources/${tenant}/enable`)).status).toBe(200);
    expect((await admin("GET", `/aps/2/resources/${tenant}`)).json.aps.status).toBe("aps:ready");
  });

  it("runs the activation flow: 202 with activationRequired, reprovision with corrected data, the async repeat sees status reprovisioned and ends ready", async () => {
    const acc = await admin("POST", "/aps/2/resources", {
      aps: { type: `${PA}/account/1.2` },
      id: 1000007,
      type: "CLIENT",
      companyName: "Alaska Fish",
      addressPostal: { postalCode: "99950" },
      techContact: { email: "tech@fish.example" },
    });
    const sub = await admin("POST", "/aps/2/resources", {
      aps: { type: `${PA}/subscription/1.0` },
      subscriptionId: 447,
      serviceTemplateId: 7,
      name: "FallBall",
      account: { aps: { id: acc.json.aps.id } },
    });
    const r = await admin("POST", "/aps/2/resources", {
      aps: { type: `${FB}/tenant/1.0` },
      account: { aps: { id: acc.json.aps.id } },
      subscription: { aps: { id: sub.json.aps.id } },
      DISKSPACE: { limit: 50 },
    });
    expect(r.status, r.text).toBe(202);
    const id = r.json.aps.id as string;
    const pending = (await admin("GET", `/aps/2/resources/${id}`)).json;
    expect(pending).toMatchObject({
      aps: { status: "aps:provisioning" },
      status: "activationRequired",
      accountInfo: { addressPostal: { postalCode: "99950" } },
      DISKSPACE: { limit: 50 },
    });
    // An async repeat while nothing changed: the connector answers 202 again.
    await until("an async repeat", () =>
      fb.calls.some((c) => c.path === "/tenant" && c.headers["aps-request-phase"] === "async"),
    );
    // The customer corrects the postal code; the panel calls reprovision with the tenant as it is, corrected.
    const corrected = { ...pending, accountInfo: { addressPostal: { postalCode: "10001" } } };
    const re = await admin("POST", `/aps/2/resources/${id}/reprovision`, corrected);
    expect(re.status, re.text).toBe(200);
    expect((await admin("GET", `/aps/2/resources/${id}`)).json.status).toBe("reprovisioned");
    // The next repeat carries status reprovisioned; the connector answers 201 and the tenant is ready.
    await until(
      "ready",
      async () => (await admin("GET", `/aps/2/resources/${id}`)).json.aps.status === "aps:ready",
      20_000,
    );
    const ready = (await admin("GET", `/aps/2/resources/${id}`)).json;
    expect(ready).toMatchObject({
      status: "reprovisioned",
      tenantId: "Alaska-Fish-sub447",
      DISKSPACE: { limit: 50, usage: 0 },
    });
    const lastRepeat = fb.calls
      .filter((c) => c.path === "/tenant" && c.headers["aps-request-phase"] === "async")
      .at(-1)!.body as Body;
    expect(lastRepeat).toMatchObject({
      status: "reprovisioned",
      aps: { id, status: "aps:provisioning", subscription: sub.json.aps.id },
    });
    expect((await admin("DELETE", `/aps/2/resources/${id}`)).status).toBe(204);
  });

  it("unprovisions users and the tenant, then uninstalls", async () => {
    for (const u of (await admin("GET", `/aps/2/resources/${tenant}/users`)).json as { aps: { id: string } }[])
      expect((await admin("DELETE", `/aps/2/resources/${u.aps.id}`)).status).toBe(204);
    expect((await admin("DELETE", `/aps/2/resources/${tenant}`)).status).toBe(204);
    expect(companies.size).toBe(0);
    const instance = (await admin("GET", "/aps/2/instances")).json[0].id;
    const gone = await admin("DELETE", `/aps/2/instances/${instance}`);
    expect(gone.status, gone.text).toBe(200);
    expect(fb.calls.at(-1)).toMatchObject({ method: "DELETE" });
  });
});
