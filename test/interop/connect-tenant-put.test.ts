/**
 * Issue 16 item 9, the application API side (docs/platform-forms.md §1.2, table row 33): the
 * Connect extension configures its tenant with `PUT aps/2/application/tenants/{tenant}` carrying
 * the whole tenant as read by GET, `aps` and links included, with some properties changed
 * (`request_tracker_utils.py:349-381`, `request_tracker_scheduled_actions.py:62-91`). Here the
 * application calls with its instance certificate (Connect signs with OAuth; item 6). cloudmail's
 * tenant holds three required links (app, account, subscription) and a collection (domains).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databases, startControllerUnderTest, type ControllerUnderTest } from "../e2e/controller-harness.ts";
import {
  createCloudmailTenant,
  credentialsOf,
  installCloudmailAt,
  startFakeApplication,
  type FakeApplication,
} from "../e2e/fake-application.ts";
import { httpsClient } from "../helpers/https-client.ts";

const MAIL = "http://cloudmail.example.com/types";
const CORE = "http://aps-standard.org/types/core";

describe.each(databases)("the Connect extension's whole-tenant PUT on %s", (kind) => {
  let t: ControllerUnderTest;
  let mail: FakeApplication;
  let asMail: ReturnType<typeof httpsClient>;
  let tenant = "";
  let subscription = "";
  let otherSubscription = "";
  const dir = mkdtempSync(join(tmpdir(), "aps-connect-put-"));
  const admin = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { token: t.adminToken, ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    t = await startControllerUnderTest(kind, ["types/examples/cloudmail"], { endpointTimeoutMs: 5000 });
    mail = await startFakeApplication(join(dir, "mail"));
    await installCloudmailAt(t, mail);
    asMail = httpsClient(t.controller.url, t.controller.caCert, credentialsOf(mail));
    ({ subscription, tenant } = await createCloudmailTenant(t));
    otherSubscription = (
      await admin("POST", "/aps/2/resources", { aps: { type: `${CORE}/subscription/1.0` }, name: "migrated" })
    ).json.aps.id;
  }, 90_000);
  afterAll(async () => {
    await mail?.close();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("takes the tenant as read with changed properties, and relinks a changed link", async () => {
    const read = await asMail("GET", `/aps/2/resources/${tenant}`);
    expect(read.status, read.text).toBe(200);
    expect(read.json.subscription).toMatchObject({ aps: { id: subscription } });
    const put = await asMail("PUT", `/aps/2/application/tenants/${tenant}`, {
      body: { ...read.json, organizationId: "org-7", aps: { ...read.json.aps, status: "aps:ready" } },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.json.organizationId).toBe("org-7");
    // A subscription migrated to another one: the changed link is relinked.
    const again = (await asMail("GET", `/aps/2/resources/${tenant}`)).json;
    const moved = await asMail("PUT", `/aps/2/application/tenants/${tenant}`, {
      body: { ...again, subscription: { aps: { id: otherSubscription } } },
    });
    expect(moved.status, moved.text).toBe(200);
    expect((await asMail("GET", `/aps/2/resources/${tenant}`)).json.subscription).toMatchObject({
      aps: { id: otherSubscription },
    });
  });

  it("refuses a changed type, the removal of a required link and a link to what is not of the relation's type", async () => {
    const read = (await asMail("GET", `/aps/2/resources/${tenant}`)).json;
    const upgraded = await asMail("PUT", `/aps/2/application/tenants/${tenant}`, {
      body: { ...read, aps: { ...read.aps, type: `${MAIL}/tenant/2.0` } },
    });
    expect(upgraded.status, upgraded.text).toBe(409);
    expect(
      (await asMail("PUT", `/aps/2/application/tenants/${tenant}`, { body: { ...read, account: null } })).status,
    ).toBe(409);
    const wrong = await asMail("PUT", `/aps/2/application/tenants/${tenant}`, {
      body: { ...read, organizationId: "not stored", subscription: { aps: { id: tenant } } },
    });
    expect(wrong.status, wrong.text).toBe(400);
    expect((await asMail("GET", `/aps/2/resources/${tenant}`)).json.organizationId).toBe(read.organizationId);
  });
});
