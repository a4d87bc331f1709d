/**
 * Issue 27 item 6: the platform types and services a connector uses, in the forms roluch/fallball-connector
 * writes them (an application calling with its credentials; here its instance certificate, FallBall signs
 * with OAuth 1, which oauth.test.ts covers):
 * - `connector/v1/resources/__init__.py:102-106`: `GET aps/2/resources?implementing(<percent-encoded
 *   http://www.parallels.com/pa/pa-core-services/notification-manager/1>)`, reading `[0].aps.id`;
 * - `:108-136`: `POST aps/2/resources/<that id>/notifications` with `{status, message {message, keys?},
 *   accountId? | userId?, details? {message, keys?}, link?, initiatorId?}`, no APS-Transaction-ID; its
 *   `send_request` takes only 200 (`:193-213`);
 * - `tenant.py:180-181`: `GET aps/2/resources/<account>` reading companyName, techContact.email,
 *   addressPostal.postalCode of a `pa/account/1.2`; `user.py:43-45`: email, login, isAccountAdmin,
 *   displayName, aps.id of a `pa/service-user/1.2`.
 * Relative paths (`aps/2/...`) are joined to the controller's URL as FallBall's urljoin does.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databases, startControllerUnderTest, type ControllerUnderTest } from "../e2e/controller-harness.ts";
import {
  credentialsOf,
  installCloudmailAt,
  startFakeApplication,
  type FakeApplication,
} from "../e2e/fake-application.ts";
import { httpsClient } from "../helpers/https-client.ts";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";

const MAIL = "http://cloudmail.example.com/types";
const CORE = "http://aps-standard.org/types/core";
const PA = "http://parallels.com/aps/types/pa";
const MANAGER = "http://www.parallels.com/pa/pa-core-services/notification-manager/1";

describe.each(databases)("the platform's types and notification manager, as FallBall uses them, on %s", (kind) => {
  let t: ControllerUnderTest;
  let mail: FakeApplication;
  let asMail: ReturnType<typeof httpsClient>;
  let account = "";
  let other = "";
  let user = "";
  let customerToken = "";
  let otherToken = "";
  const dir = mkdtempSync(join(tmpdir(), "aps-platform-services-"));
  const admin = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { token: t.adminToken, ...(body === undefined ? {} : { body }) });
  /** FallBall's OA.get_notification_manager(). */
  const findManager = async () => {
    const found = await asMail("GET", `aps/2/resources?implementing(${encodeURIComponent(MANAGER)})`, {
      headers: { "content-type": "application/json" },
    });
    expect(found.status, found.text).toBe(200);
    return found.json[0].aps.id as string;
  };
  /** FallBall's OA.send_notification(...): the body it builds, posted as it posts it. */
  const sendNotification = async (body: Record<string, unknown>) =>
    asMail("POST", `aps/2/resources/${await findManager()}/notifications`, {
      body,
      headers: { "content-type": "application/json" },
    });

  beforeAll(async () => {
    t = await startControllerUnderTest(kind, ["types/examples/cloudmail"], { endpointTimeoutMs: 5000 });
    mail = await startFakeApplication(join(dir, "mail"));
    await installCloudmailAt(t, mail);
    asMail = httpsClient(`${t.controller.url}/`, t.controller.caCert, credentialsOf(mail));
    const created = await admin("POST", "/aps/2/resources", {
      aps: { type: `${PA}/account/1.2` },
      id: 1000005,
      type: "CLIENT",
      companyName: "Test Customer",
      addressPostal: { postalCode: "123456", countryName: "de" },
      techContact: { email: "tech@customer.example" },
    });
    expect(created.status, created.text).toBe(201);
    account = created.json.aps.id;
    other = (
      await admin("POST", "/aps/2/resources", {
        aps: { type: `${PA}/account/1.2` },
        id: 1000006,
        type: "CLIENT",
        companyName: "Other",
        addressPostal: {},
      })
    ).json.aps.id;
    const u = await admin("POST", "/aps/2/resources", {
      aps: { type: `${PA}/service-user/1.2` },
      login: "na@aps.test",
      email: "na@aps.test",
      displayName: "Nick Archer",
      isAccountAdmin: false,
      servicesMode: "NONE",
      organization: { aps: { id: account } },
    });
    expect(u.status, u.text).toBe(201);
    user = u.json.aps.id;
    // The application reaches the account through its tenant's link, as FallBall's tenant does.
    const subscription = (
      await admin("POST", "/aps/2/resources", { aps: { type: `${CORE}/subscription/1.0` }, name: "mail" })
    ).json.aps.id;
    const tenant = await admin("POST", "/aps/2/resources", {
      aps: { type: `${MAIL}/tenant/1.0` },
      account: { aps: { id: account } },
      subscription: { aps: { id: subscription } },
    });
    expect(tenant.status, tenant.text).toBe(201);
    const tokens = new TokenService(loadKeys(t.dataDir).token);
    customerToken = await tokens.mint({ accountId: account });
    otherToken = await tokens.mint({ accountId: other });
  }, 90_000);
  afterAll(async () => {
    await mail?.close();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("finds the notification manager by implementing(<percent-encoded .../notification-manager/1>) and reads [0].aps.id", async () => {
    const id = await findManager();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const read = await asMail("GET", `aps/2/resources/${id}`);
    expect(read.status, read.text).toBe(200);
    expect(read.json.aps.type).toBe(`${MANAGER}.0`);
    // The provider's administrators see it too, and the alias says where it is.
    expect((await admin("GET", `/aps/2/resources/${id}`)).status).toBe(200);
    const alias = await admin("GET", "/aps/2/services/notification-manager");
    expect(alias.status, alias.text).toBe(200);
    expect(alias.json.aps.id).toBe(id);
  });

  it("takes FallBall's user notification (user.py:118-138) and its account notification (tenant.py:346-352) with 200 and the notification recorded", async () => {
    const forUser = {
      status: "ready",
      message: { message: "Fallball assigned to user" },
      userId: user,
      details: { message: "Fallball was assigned to Nick Archer" },
      link: `/v/pa/ccp-users/viewUser/r/${user}`,
      initiatorId: user,
    };
    const posted = await sendNotification(forUser);
    expect(posted.status, posted.text).toBe(200);
    expect(posted.json).toMatchObject({
      ...forUser,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      time: expect.any(String),
    });
    const forAccount = {
      status: "ready",
      message: { message: "Usage updated", keys: { n: "1" } },
      details: { message: "Fallball resource usage was updated", keys: { n: "1" } },
      accountId: account,
    };
    const second = await sendNotification(forAccount);
    expect(second.status, second.text).toBe(200);
    // Shown: to the application that sent them, one by id, and to the provider.
    const manager = await findManager();
    const mine = await asMail("GET", `aps/2/resources/${manager}/notifications`);
    expect(mine.status, mine.text).toBe(200);
    expect(mine.json.map((n: { message: { message: string } }) => n.message.message)).toEqual([
      "Fallball assigned to user",
      "Usage updated",
    ]);
    expect(mine.headers["content-range"]).toBe("items 0-1/2");
    const one = await asMail("GET", `aps/2/resources/${manager}/notifications/${posted.json.id}`);
    expect(one.json).toEqual(posted.json);
    const page = await admin("GET", `/aps/2/resources/${manager}/notifications?limit(1,1)`);
    expect(page.json.map((n: { id: string }) => n.id)).toEqual([second.json.id]);
    expect(page.headers["content-range"]).toBe("items 1-1/2");
  });

  it("serves the platform account and service user with what FallBall reads (tenant.py:180-181, user.py:43-45)", async () => {
    // Read as the application: it reaches the account through its tenant's link, and reads the
    // properties whose access leaves referrer unsaid, as FallBall does.
    const company = await asMail("GET", `aps/2/resources/${account}`);
    expect(company.status, company.text).toBe(200);
    expect(company.json.aps.type).toBe(`${PA}/account/1.2`);
    expect([company.json.companyName, company.json.techContact.email, company.json.addressPostal.postalCode]).toEqual([
      "Test Customer",
      "tech@customer.example",
      "123456",
    ]);
    // An account it does not reach stays hidden from it.
    expect((await asMail("GET", `aps/2/resources/${other}`)).status).toBe(404);
    // Connect's form: a property named id (fulfillment_models.py:451-458).
    const byNumber = await admin(
      "GET",
      `/aps/2/resources/?implementing(${encodeURIComponent(`${PA}/account/1.2`)}),eq(id,1000005)`,
    );
    expect(byNumber.json.map((a: { aps: { id: string } }) => a.aps.id)).toEqual([account]);
    const oaUser = await admin("GET", `/aps/2/resources/${user}`);
    expect(oaUser.status, oaUser.text).toBe(200);
    expect([
      oaUser.json.email,
      oaUser.json.login,
      oaUser.json.isAccountAdmin,
      oaUser.json.displayName,
      oaUser.json.aps.id,
    ]).toEqual(["na@aps.test", "na@aps.test", false, "Nick Archer", user]);
    // Found by the core types it implements.
    const users = await admin(
      "GET",
      `/aps/2/resources?implementing(${encodeURIComponent(`${CORE}/service-user/1.0`)})`,
    );
    expect(users.json.map((x: { aps: { id: string } }) => x.aps.id)).toContain(user);
  });

  it("shows an account's users what is addressed to their account, and not another account's", async () => {
    const manager = await findManager();
    const theirs = await t.call("GET", `/aps/2/resources/${manager}/notifications`, { token: customerToken });
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.json.length).toBeGreaterThan(0);
    expect(
      theirs.json.every((n: { accountId?: string; userId?: string }) => n.accountId === account || n.userId === user),
    ).toBe(true);
    const notMine = await t.call("GET", `/aps/2/resources/${manager}/notifications`, { token: otherToken });
    expect(notMine.status).toBe(200);
    expect(notMine.json).toEqual([]);
    expect(
      (await t.call("GET", `/aps/2/resources/${manager}/notifications/${theirs.json[0].id}`, { token: otherToken }))
        .status,
    ).toBe(404);
    // A customer may post to itself, not to another account.
    expect(
      (
        await t.call("POST", `/aps/2/resources/${manager}/notifications`, {
          token: otherToken,
          body: { status: "ready", message: { message: "x" }, accountId: account },
        })
      ).status,
    ).toBe(403);
    const own = await t.call("POST", `/aps/2/resources/${manager}/notifications`, {
      token: otherToken,
      body: { status: "inProgress", message: { message: "mine" }, accountId: other },
    });
    expect(own.status, own.text).toBe(200);
  });

  it("refuses what is not a notification (400), unknown recipients (400), and other platform services (404 naming what is offered)", async () => {
    for (const [body, path] of [
      [{ message: { message: "no status" } }, "/status"],
      [{ status: "done", message: { message: "x" } }, "/status"],
      [{ status: "ready" }, "/message"],
      [{ status: "ready", message: { keys: {} } }, "/message/message"],
      [{ status: "ready", message: "text" }, "/message"],
      [{ status: "ready", message: { message: "x" }, colour: "red" }, "/colour"],
    ] as const) {
      const r = await sendNotification(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(
        r.json.details.map((d: { path: string }) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    const nobody = await sendNotification({
      status: "ready",
      message: { message: "x" },
      accountId: "00000000-0000-0000-0000-000000000000",
    });
    expect(nobody.status).toBe(400);
    expect(nobody.json.message).toMatch(/accountId .* is not an account/);
    const service = await admin("GET", "/aps/2/services/periodic-task-manager");
    expect(service.status).toBe(404);
    expect(service.json.message).toMatch(/notification-manager/);
    const edit = await asMail("PUT", `aps/2/resources/${await findManager()}/notifications/x`, { body: {} });
    expect(edit.status).toBe(405);
  });
});
