/**
 * Issue 27 item 7: an instance upgrade keeps every resource. The instance of test/fixtures/upgrade/v1
 * (app/1.0, tenant/1.0, user/1.0) upgrades to v2 (app/1.1 with a new required setting, tenant/1.0
 * unchanged, user/1.1 with a new required property that has a default and one property gone) at
 * a real HTTPS endpoint (test/e2e/fake-application.ts), which gets the call FallBall routes,
 * `POST /app/{id}/upgrade?version=<old>`, and reads the root back through the controller while
 * it handles it. Refusals change nothing; an endpoint error puts everything back.
 */
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { PropertySealer } from "../../runtime/controller/support/encryption.ts";
import { startFakeApplication, successOf, type FakeApplication, type ReceivedCall } from "../e2e/fake-application.ts";
import { repoRoot } from "../helpers/paths.ts";
import { zipFolder } from "../helpers/zip-folder.ts";
import { databases, startBehaviourController, type BehaviourController } from "./harness.ts";

const T = "http://upgrade.example/types";
const V2 = join(repoRoot, "test/fixtures/upgrade/v2");

/** v2's APP-META.xml as version `version` admitting `match`. */
function metaOf(version: string, match: string): string {
  return readFileSync(join(V2, "APP-META.xml"), "utf8")
    .replace("<version>1.1</version>", `<version>${version}</version>`)
    .replace(/<upgrade match="[^"]*"\/>/, `<upgrade match="${match}"/>`);
}

describe.each(databases)("instance upgrade on %s", (kind) => {
  let t: BehaviourController;
  let app: FakeApplication;
  let sealer: PropertySealer;
  let customer = "";
  const dir = mkdtempSync(join(tmpdir(), "aps-upgrade-"));
  const ids = { v1: "", v2: "", v3: "", other: "", instance: "", root: "", tenant: "", user: "", subscription: "" };

  const admin = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { token: t.adminToken, ...(body === undefined ? {} : { body }) });
  const importPackage = async (archive: Uint8Array) => {
    const r = await t.call("POST", "/aps/2/packages", {
      token: t.adminToken,
      rawBody: archive,
      headers: { "content-type": "application/zip" },
    });
    expect(r.status, r.text).toBe(201);
    return r.json.id as string;
  };
  /** The instance's rows as stored, to compare before and after. */
  const rows = () =>
    t.sql(
      `select id, type_id, package_id, status, revision, owner_account, body, encode(secrets, 'hex') as secrets from resources where instance_id = '${ids.instance}' order by id`,
    );
  const state = async () => ({
    rows: await rows(),
    instance: await t.sql(`select package_id, status from instances where id = '${ids.instance}'`),
    subscriptions: await t.sql("select id, source_type from subscriptions order by id"),
    links: await t.sql("select source_id, relation, target_id from links order by source_id, relation"),
  });
  const upgradeCalls = () => app.calls.filter((c) => /\/upgrade\b/.test(c.path));
  const secretsOf = async (id: string) => {
    const [row] = await t.sql(`select encode(secrets, 'hex') as s from resources where id = '${id}'`);
    return sealer.open(id, Buffer.from(String(row!.s), "hex"));
  };

  beforeAll(async () => {
    t = await startBehaviourController(kind, ["test/fixtures/upgrade/v1"]);
    app = await startFakeApplication(dir);
    sealer = new PropertySealer(loadKeys(t.dataDir).encryption);
    ids.v1 = (await admin("GET", "/aps/2/packages")).json.find(
      (p: { appId: string }) => p.appId === "http://upgrade.example/app",
    ).id;
    ids.v2 = await importPackage(zipFolder(V2));
    // 2.0 upgrades only 1.1 and later; vpscloud is another application.
    ids.v3 = await importPackage(zipFolder(V2, { "APP-META.xml": metaOf("2.0", "version =ge= 1.1") }));
    ids.other = await importPackage(zipFolder(join(repoRoot, "types/examples/vpscloud")));
    const installed = await admin("POST", "/aps/2/instances", {
      package: ids.v1,
      endpoint: app.url,
      endpointCa: app.ca,
      settings: { apiUrl: "https://api.example", apiToken: "TOKEN-secret" },
    });
    expect(installed.status, installed.text).toBe(201);
    ids.instance = installed.json.id;
    ids.root = installed.json.rootResource;
    const account = await admin("POST", "/aps/2/resources", {
      aps: { type: "http://aps-standard.org/types/core/account/1.0" },
      companyName: "C",
      addressPostal: {},
    });
    customer = await new TokenService(loadKeys(t.dataDir).token).mint({ accountId: account.json.aps.id });
    const tenant = await t.call("POST", "/aps/2/resources", {
      token: customer,
      body: { aps: { type: `${T}/tenant/1.0` }, name: "t1", secret: "TENANT-secret" },
    });
    expect(tenant.status, tenant.text).toBe(201);
    ids.tenant = tenant.json.aps.id;
    const user = await t.call("POST", "/aps/2/resources", {
      token: customer,
      body: {
        aps: { type: `${T}/user/1.0` },
        login: "ann",
        password: "USER-secret",
        legacy: "old",
        tenant: { aps: { id: ids.tenant } },
      },
    });
    expect(user.status, user.text).toBe(201);
    ids.user = user.json.aps.id;
    const link = await admin("POST", `/aps/2/resources/${ids.root}/tenants`, { aps: { id: ids.tenant } });
    expect(link.status, link.text).toBe(200);
    // The tenant subscribed to changes of users, as an application subscribes while it provisions.
    ids.subscription = "3b9f6c1e-2d4a-4e8b-9c1d-5a6b7c8d9e0f";
    await t.sql(
      `insert into subscriptions (id, subscriber_id, event, source_type, handler, created) values ('${ids.subscription}', '${ids.tenant}', 'http://aps-standard.org/core/events/changed', '${T}/user/1.0', 'onUserChanged', now())`,
    );
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("imports a newer version that declares an unchanged type again, but not a changed type under the same id, nor the same version twice", async () => {
    const changed = readFileSync(join(V2, "schemas/tenant.schema"), "utf8").replace(
      '"name": { "type": "string", "required": true }',
      '"name": { "type": "string" }',
    );
    const r = await t.call("POST", "/aps/2/packages", {
      token: t.adminToken,
      rawBody: zipFolder(V2, { "APP-META.xml": metaOf("3.0", "version=ge=1.0"), "schemas/tenant.schema": changed }),
      headers: { "content-type": "application/zip" },
    });
    expect(r.status).toBe(409);
    expect(r.json.message).toMatch(/already serves: http:\/\/upgrade\.example\/types\/tenant\/1\.0/);
    const twice = await t.call("POST", "/aps/2/packages", {
      token: t.adminToken,
      rawBody: zipFolder(V2),
      headers: { "content-type": "application/zip" },
    });
    expect(twice.status).toBe(409);
    expect(twice.json.message).toMatch(/1\.1-1 is already imported as package/);
  });

  it("refuses callers that are not provider administrators, packages that are not newer versions of the application or not admitted, and a missing new setting; nothing changes", async () => {
    const before = await state();
    const asCustomer = await t.call("POST", `/aps/2/instances/${ids.instance}/upgrade`, {
      token: customer,
      body: { package: ids.v2 },
    });
    expect(asCustomer.status).toBe(403);
    const same = await admin("POST", `/aps/2/instances/${ids.instance}/upgrade`, { package: ids.v1 });
    expect(same.status).toBe(409);
    expect(same.json.message).toMatch(/not newer than the installed Upgrade Example 1\.0-1/);
    const other = await admin("POST", `/aps/2/instances/${ids.instance}/upgrade`, { package: ids.other });
    expect(other.status).toBe(409);
    expect(other.json.message).toMatch(/another application/);
    const notAdmitted = await admin("POST", `/aps/2/instances/${ids.instance}/upgrade`, {
      package: { version: "2.0" },
    });
    expect(notAdmitted.status).toBe(409);
    expect(notAdmitted.json.message).toMatch(/does not upgrade 1\.0-1: its APP-META\.xml admits "version =ge= 1\.1"/);
    const noRegion = await admin("POST", `/aps/2/instances/${ids.instance}/upgrade`, { package: ids.v2 });
    expect(noRegion.status).toBe(409);
    expect(noRegion.json.message).toMatch(/requires region .*"settings"/);
    const badRegion = await admin("POST", `/aps/2/instances/${ids.instance}/upgrade`, {
      package: ids.v2,
      settings: { region: "mars" },
    });
    expect(badRegion.status).toBe(400);
    expect((await admin("POST", `/aps/2/instances/${ids.instance}/upgrade`, { package: "nope" })).status).toBe(400);
    expect(
      (await admin("POST", "/aps/2/instances/00000000-0000-0000-0000-000000000000/upgrade", { package: ids.v2 }))
        .status,
    ).toBe(404);
    expect(upgradeCalls()).toEqual([]);
    expect(await state()).toEqual(before);
  });

  it("puts everything back when the endpoint answers the upgrade with an error, and passes the error on", async () => {
    const before = await state();
    app.answer = (call) =>
      /\/upgrade\b/.test(call.path)
        ? { status: 500, body: { message: "cannot upgrade today", error: "UpgradeError" } }
        : successOf(call);
    const r = await admin("POST", `/aps/2/instances/${ids.instance}/upgrade`, {
      package: ids.v2,
      settings: { region: "eu" },
    });
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ message: "cannot upgrade today", error: "UpgradeError" });
    expect(upgradeCalls()).toHaveLength(1);
    expect(await state()).toEqual(before);
    expect((await admin("GET", `/aps/2/instances/${ids.instance}`)).json).toMatchObject({
      package: ids.v1,
      status: "ready",
    });
    expect(await t.sql("select * from instance_upgrades")).toEqual([]);
    app.calls.length = 0;
  });

  it("upgrades: the endpoint gets POST /app/{id}/upgrade?version=1.0-1 and sees aps:upgrading and the new types; every resource, link, owner, secret and subscription is kept", async () => {
    const before = await state();
    const during: { status?: string; type?: string; user?: string; again?: number } = {};
    app.answer = async (call: ReceivedCall) => {
      if (!/\/upgrade\b/.test(call.path)) return successOf(call);
      const root = await admin("GET", `/aps/2/resources/${ids.root}`);
      during.status = root.json.aps.status;
      during.type = root.json.aps.type;
      during.user = (await admin("GET", `/aps/2/resources/${ids.user}`)).json.aps.type;
      during.again = (
        await admin("POST", `/aps/2/instances/${ids.instance}/upgrade`, { package: ids.v2, settings: { region: "eu" } })
      ).status;
      return { status: 200, body: {} };
    };
    const r = await admin("POST", `/aps/2/instances/${ids.instance}/upgrade`, {
      package: { version: "1.1", release: "1" },
      settings: { region: "eu" },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ id: ids.instance, package: ids.v2, rootResource: ids.root, status: "ready" });
    // The call, once, as FallBall's apiary.apib describes it: POST /app/{id}/upgrade{?version}.
    const calls = upgradeCalls();
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([`POST /app/${ids.root}/upgrade?version=1.0-1`]);
    expect(calls[0]!.headers["aps-instance-id"]).toBe(ids.instance);
    expect(calls[0]!.headers["aps-transaction-id"]).toBeTruthy();
    expect(calls[0]!.headers["aps-controller-uri"]).toBe(t.controller.url);
    expect(during).toEqual({ status: "aps:upgrading", type: `${T}/app/1.1`, user: `${T}/user/1.1`, again: 409 });

    const after = await state();
    // Same resources, owners and links; only types, package and revisions moved.
    expect(after.rows.map((x) => [x.id, x.owner_account])).toEqual(before.rows.map((x) => [x.id, x.owner_account]));
    expect(after.rows.every((x) => x.package_id === ids.v2)).toBe(true);
    expect(after.links).toEqual(before.links);
    expect(after.instance).toEqual([{ package_id: ids.v2, status: "ready" }]);
    expect(after.subscriptions).toEqual([{ id: ids.subscription, source_type: `${T}/user/1.1` }]);
    const root = (await admin("GET", `/aps/2/resources/${ids.root}`)).json;
    expect(root).toMatchObject({
      aps: { type: `${T}/app/1.1`, status: "aps:ready", package: { id: ids.v2 } },
      apiUrl: "https://api.example",
      region: "eu",
    });
    const user = (await admin("GET", `/aps/2/resources/${ids.user}`)).json;
    expect(user).toMatchObject({
      aps: { type: `${T}/user/1.1` },
      login: "ann",
      quota: 10,
      tenant: { aps: { id: ids.tenant } },
    });
    expect(user.legacy).toBeUndefined();
    expect((await admin("GET", `/aps/2/resources/${ids.tenant}`)).json).toMatchObject({
      aps: { type: `${T}/tenant/1.0`, package: { id: ids.v2 } },
      name: "t1",
    });
    expect(
      (await admin("GET", `/aps/2/resources/${ids.root}/tenants`)).json.map((x: { aps: { id: string } }) => x.aps.id),
    ).toEqual([ids.tenant]);
    // Encrypted values, sealed again under the new types.
    expect(await secretsOf(ids.root)).toEqual({ apiToken: "TOKEN-secret" });
    expect(await secretsOf(ids.user)).toEqual({ password: "USER-secret" });
    expect(await secretsOf(ids.tenant)).toEqual({ secret: "TENANT-secret" });
    expect(await t.sql("select * from instance_upgrades")).toEqual([]);
    // New resources of the new and the kept types go to the upgraded instance, in its package.
    const bob = await t.call("POST", "/aps/2/resources", {
      token: customer,
      body: { aps: { type: `${T}/user/1.1` }, login: "bob", quota: 5, tenant: { aps: { id: ids.tenant } } },
    });
    expect(bob.status, bob.text).toBe(201);
    expect(bob.json).toMatchObject({ aps: { package: { id: ids.v2 } }, quota: 5 });
    const t2 = await t.call("POST", "/aps/2/resources", {
      token: customer,
      body: { aps: { type: `${T}/tenant/1.0` }, name: "t2" },
    });
    expect(t2.status, t2.text).toBe(201);
    expect(t2.json.aps.package.id).toBe(ids.v2);
    // Back to 1.0 is not an upgrade.
    const down = await admin("POST", `/aps/2/instances/${ids.instance}/upgrade`, { package: ids.v1 });
    expect(down.status).toBe(409);
  });

  it("upgrades in the platform's form on /aps/2/applications/{id}/upgrade, to a package that admits only 1.1 and later", async () => {
    app.calls.length = 0;
    app.answer = successOf;
    const r = await admin("POST", `/aps/2/applications/${ids.instance}/upgrade`, {
      aps: { package: { version: "2.0" } },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      aps: { id: ids.instance },
      package: { id: ids.v3, version: "2.0", release: "1" },
      app: { aps: { id: ids.root, type: `${T}/app/1.1` } },
    });
    expect(upgradeCalls().map((c) => c.path)).toEqual([`/app/${ids.root}/upgrade?version=1.1-1`]);
  });

  it("rolls back an upgrade whose lease passed (its process died) before upgrading again; the first request, answered late, finds it taken over", async () => {
    const v4 = await importPackage(zipFolder(V2, { "APP-META.xml": metaOf("4.0", "version=ge=1.0") }));
    app.calls.length = 0;
    let second: { status: number; package?: string; seen?: unknown } | undefined;
    app.answer = async (call: ReceivedCall) => {
      if (!/\/upgrade\b/.test(call.path) || upgradeCalls().length > 1) return successOf(call);
      // As if the process running this upgrade had died: its lease passes, another request comes.
      const [running] = await t.sql(`select from_package from instance_upgrades where instance_id = '${ids.instance}'`);
      await t.sql(
        `update instance_upgrades set lease_until = now() - interval '1 minute' where instance_id = '${ids.instance}'`,
      );
      const r = await admin("POST", `/aps/2/instances/${ids.instance}/upgrade`, { package: v4 });
      second = { status: r.status, package: r.json?.package, seen: running };
      return { status: 200, body: {} };
    };
    const first = await admin("POST", `/aps/2/instances/${ids.instance}/upgrade`, { package: v4 });
    expect(first.status).toBe(409);
    expect(first.json.message).toMatch(/ran past its lease and another request rolled it back/);
    expect(second).toEqual({ status: 200, package: v4, seen: { from_package: ids.v3 } });
    // The second upgrade went from 2.0-1 again: the first one's move was rolled back first.
    expect(upgradeCalls().map((c) => c.path)).toEqual([
      `/app/${ids.root}/upgrade?version=2.0-1`,
      `/app/${ids.root}/upgrade?version=2.0-1`,
    ]);
    expect(await t.sql(`select package_id, status from instances where id = '${ids.instance}'`)).toEqual([
      { package_id: v4, status: "ready" },
    ]);
    expect((await admin("GET", `/aps/2/resources/${ids.root}`)).json.aps.status).toBe("aps:ready");
    expect(await t.sql("select * from instance_upgrades")).toEqual([]);
    expect(await t.sql("select count(*)::int as n from upgrade_snapshots")).toEqual([{ n: 0 }]);
  });
});
