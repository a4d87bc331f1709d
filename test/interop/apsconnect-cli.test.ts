/**
 * Issue 16 item 4: the application instances collection and the platform lookups as
 * cloudblue/apsconnect-cli (apsconnectcli/hub.py) and the Connect extension
 * (cbcext/services/hub/services.py) make them, in their request forms (docs/platform-forms.md §1.1,
 * §1.2, rows 35-39):
 * - apsconnect-cli joins `'{base}/{uri}'` with URIs written without a leading slash (hub.py:720-732),
 *   one with a double slash (`//aps/2/resources/{id}`, :197), and sends `APS-Token`;
 * - `GET aps/2/applications/` is its connectivity probe; `POST aps/2/applications/` installs with
 *   `{"aps": {"package": {type, version, release}, "endpoint", "network": "proxy", "auth": {"oauth"}}, ...settings}`
 *   and reads `app.aps.id` (:233-269), then `GET aps/2/resources/{id}` → `aps.package.id` →
 *   `GET aps/2/packages/{id}` → `'itemProfile' in services.keys()` (:315-329);
 * - `GET aps/2/services/resource-type-manager[/resourceTypes/{id}]` (:380-446);
 * - the Connect extension: `GET /aps` as a version probe (services.py:168-181), `POST aps/2/applications`
 *   with only the package type, acting for its own root resource, 200 the only success it takes (:502-540),
 *   and `POST /aps/2/services/periodic-task-manager/tasks` (oaclient:81-109), which is not offered.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { databases, startControllerUnderTest, type ControllerUnderTest } from "../e2e/controller-harness.ts";
import { startFakeApplication, type FakeApplication } from "../e2e/fake-application.ts";
import { httpsClient } from "../helpers/https-client.ts";

const APP_META_ID = "http://cloudmail.example.com/cloudmail";
const ROOT_TYPE = "http://cloudmail.example.com/types/cloudmail/1.0";
const SETTINGS = { apiEndpoint: "https://api.example", apiKey: "key-0123456789abcdef", apiSecret: "secret-0123456789" };
const run = promisify(execFile);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(databases)("apsconnect-cli and Connect forms of /aps/2/applications on %s", (kind) => {
  let t: ControllerUnderTest;
  let endpoint: FakeApplication;
  let customer = "";
  const dir = mkdtempSync(join(tmpdir(), "aps-cli-"));

  /** hub.py's APS class: `requests.<verb>('{}/{}'.format(self.url, uri), headers={'APS-Token': ...}, json=...)`. */
  const cli = (method: string, uri: string, body?: unknown, token = t.adminToken) =>
    t.call(method, `${t.controller.url}/${uri}`, { token, ...(body === undefined ? {} : { body }) });
  /** apsconnect-cli's create_instance payload (hub.py:233-253). */
  const cliPayload = (overrides: Record<string, unknown> = {}, key = "cli-key") => ({
    aps: {
      package: { type: APP_META_ID, version: "1.0", release: "1" },
      endpoint: endpoint.url,
      network: "proxy",
      auth: { oauth: { key, secret: "cli-secret" } },
      endpointCa: endpoint.ca,
      ...overrides,
    },
    ...SETTINGS,
  });

  beforeAll(async () => {
    t = await startControllerUnderTest(kind, ["types/examples/cloudmail"], { endpointTimeoutMs: 3000 });
    endpoint = await startFakeApplication(dir);
    const account = await t.call("POST", "/aps/2/resources", {
      token: t.adminToken,
      body: {
        aps: { type: "http://aps-standard.org/types/core/account/1.0" },
        companyName: "Customer",
        addressPostal: {},
      },
    });
    customer = await new TokenService(loadKeys(t.dataDir).token).mint({
      accountId: account.json.aps.id,
      userId: randomUUID(),
    });
  }, 60_000);
  afterAll(async () => {
    await endpoint?.close();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("GET aps/2/applications/ (the connectivity probe) and GET /aps (the version probe) answer 200", async () => {
    const probe = await cli("GET", "aps/2/applications/");
    expect(probe.status, probe.text).toBe(200);
    expect(probe.json).toEqual([]);
    expect(probe.headers["content-range"]).toBe("items */0");
    // services.py:176-180: max over versions by int(version.replace(".", "")).
    const versions = await t.call("GET", "/aps", {});
    expect(versions.status).toBe(200);
    const newest = Object.values(versions.json.versions as Record<string, { version: string; href: string }>).sort(
      (a, b) => Number(b.version.replace(/\./g, "")) - Number(a.version.replace(/\./g, "")),
    )[0]!;
    expect(newest).toMatchObject({ version: "2.0.0", href: "/aps/2" });
  });

  let instance = "";
  let root = "";

  it("POST aps/2/applications/ installs from apsconnect-cli's payload: 200, app.aps.id is the root, then the package and its services", async () => {
    const r = await cli("POST", "aps/2/applications/", cliPayload());
    expect(r.status, r.text).toBe(200);
    instance = r.json.aps.id;
    root = r.json.app.aps.id;
    expect(instance).toMatch(UUID);
    expect(root).toMatch(UUID);
    expect(r.json.app.aps.type).toBe(ROOT_TYPE);
    expect(r.json.auth).toEqual({ oauth: { key: "cli-key" } });
    expect(r.text).not.toContain("cli-secret");
    // The endpoint got the settings merged at top level, as the root resource's properties.
    const install = endpoint.calls.find((c) => c.method === "POST" && /^\/cloudmail\/?$/.test(c.path))!;
    expect(install.body).toMatchObject({ aps: { type: ROOT_TYPE, id: root }, ...SETTINGS });
    // hub.py:197 (double slash) reads aps.type; :315-318 reads aps.package.id.
    const typed = await cli("GET", `/aps/2/resources/${root}`);
    expect(typed.status, typed.text).toBe(200);
    expect(typed.json.aps.type).toBe(ROOT_TYPE);
    const read = await cli("GET", `aps/2/resources/${root}`);
    const packageId = read.json.aps.package.id;
    // hub.py:320-329: services is an object; 'itemProfile' in services.keys().
    const pkg = await cli("GET", `aps/2/packages/${packageId}`);
    expect(pkg.status).toBe(200);
    expect(Object.keys(pkg.json.services).sort()).toEqual(["cloudmail", "domains", "mailboxes", "tenants"]);
    expect("itemProfile" in pkg.json.services).toBe(false);
    expect(pkg.json.services.tenants).toEqual({
      type: "http://cloudmail.example.com/types/tenant/1.0",
      schema: `/aps/2/types/${encodeURIComponent("http://cloudmail.example.com/types/tenant/1.0")}`,
    });
    expect(pkg.json).toMatchObject({ name: "CloudMail", slug: "cloudmail", version: "1.0", release: "1" });
    // Listed and read in the same form; the old collection shows the same instance.
    const list = await cli("GET", "aps/2/applications/");
    expect(list.json.map((i: { aps: { id: string } }) => i.aps.id)).toEqual([instance]);
    expect((await cli("GET", `aps/2/applications/${instance}`)).json).toMatchObject({
      aps: { id: instance },
      app: { aps: { id: root } },
      package: { id: packageId, type: APP_META_ID },
    });
    expect((await cli("GET", `aps/2/instances/${instance}`)).json.rootResource).toBe(root);
  });

  it("POST aps/2/applications with only the package type (the Connect extension), by an instance acting for its root resource", async () => {
    // The first instance's credentials, as its endpoint got them in aps.x509.self.
    const self = (
      endpoint.calls.find((c) => c.method === "POST" && /^\/cloudmail\/?$/.test(c.path))!.body!.aps as {
        x509: { self: string };
      }
    ).x509.self;
    const at = self.indexOf("-----BEGIN RSA PRIVATE KEY-----");
    const asApplication = httpsClient(t.controller.url, t.controller.caCert, {
      cert: self.slice(0, at),
      key: self.slice(at),
    });
    const body = {
      aps: {
        package: { type: APP_META_ID },
        endpoint: endpoint.url,
        network: "proxy",
        auth: { oauth: { key: "connect-key", secret: "connect-secret" } },
        endpointCa: endpoint.ca,
      },
      ...SETTINGS,
    };
    // As itself the application is not the provider; acting for its root (owned by the provider) it is.
    expect((await asApplication("POST", `${t.controller.url}/aps/2/applications`, { body })).status).toBe(403);
    const r = await asApplication("POST", `${t.controller.url}/aps/2/applications`, {
      body,
      headers: { "aps-resource-id": root },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.app.aps.id).toMatch(UUID);
    expect(r.json.package.version).toBe("1.0");
    const removed = await cli("DELETE", `aps/2/applications/${r.json.aps.id}`);
    expect(removed.status, removed.text).toBe(200);
    expect(removed.json).toEqual({ removed: 1, endpointErrors: [] });
  });

  it("refuses bodies it cannot use with 400, other callers with 403, and installs nothing", async () => {
    const bad: [unknown, RegExp][] = [
      [[1], /"aps": \{"package"/],
      [{ ...SETTINGS }, /"aps" must be an object/],
      [
        cliPayload({ package: { type: "http://nowhere.example/app" } }),
        /No package with APP-META id http:\/\/nowhere\.example\/app/,
      ],
      [cliPayload({ package: { type: APP_META_ID, version: "2.0" } }), /imported: 1\.0-1/],
      [cliPayload({ package: { id: "00000000-0000-0000-0000-000000000000" } }), /not imported here/],
      [cliPayload({ package: "cloudmail" }), /"aps\.package" must be/],
      [cliPayload({ endpoint: undefined }), /"aps\.endpoint"/],
      [cliPayload({ network: "carrier-pigeon" }), /"aps\.network"/],
      [cliPayload({ x509: {} }), /does not know: x509/],
      [cliPayload({ auth: { oauth: { key: "" } } }), /"auth" must be/],
    ];
    for (const [body, message] of bad) {
      const r = await cli("POST", "aps/2/applications/", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.message).toMatch(message);
      expect(r.json.error).toBeTruthy(); // hub.py:260-263 prints error and message
    }
    // A customer is refused before its body is looked at.
    const customerTry = await cli(
      "POST",
      "aps/2/applications/",
      cliPayload({ package: { type: "http://nowhere.example/app" } }),
      customer,
    );
    expect(customerTry.status).toBe(403);
    expect((await cli("GET", "aps/2/applications/", undefined, customer)).status).toBe(403);
    expect((await t.call("POST", "/aps/2/applications/", { body: cliPayload() })).status).toBe(401);
    expect((await cli("GET", "aps/2/applications/")).json).toHaveLength(1);
    for (const method of ["GET", "DELETE"]) {
      const missing = await cli(method, "aps/2/applications/00000000-0000-0000-0000-000000000000");
      expect(missing.status, method).toBe(404);
    }
    expect((await cli("GET", "aps/2/packages/00000000-0000-0000-0000-000000000000")).status).toBe(404);
  });

  it("GET aps/2/services/resource-type-manager answers; it has no resource types; other platform services are a 404 that says so", async () => {
    const rtm = await cli("GET", "aps/2/services/resource-type-manager");
    expect(rtm.status, rtm.text).toBe(200);
    const types = await cli("GET", "aps/2/services/resource-type-manager/resourceTypes");
    expect(types.json).toEqual([]);
    const one = await cli("GET", "aps/2/services/resource-type-manager/resourceTypes/42");
    expect(one.status).toBe(404);
    expect(one.json.message).toMatch(/no billing resource types .*addResourceType/);
    expect((await cli("POST", "aps/2/services/resource-type-manager/resourceTypes", {})).status).toBe(405);
    const tasks = await cli("POST", "aps/2/services/periodic-task-manager/tasks", {
      taskUuid: "",
      taskName: "t",
      callInfo: {},
      schedule: {},
    });
    expect(tasks.status).toBe(404);
    expect(tasks.json.message).toMatch(/"periodic-task-manager" is not offered.*resource-type-manager/);
    expect((await cli("GET", "aps/2/services/")).status).toBe(404);
    expect((await cli("GET", "aps/2/services/resource-type-manager", undefined, "")).status).toBe(401);
  });

  it("DELETE aps/2/applications/{id} uninstalls: the endpoint is told, the instance and its root are gone", async () => {
    const r = await cli("DELETE", `aps/2/applications/${instance}/`);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ removed: 1, endpointErrors: [] });
    expect(endpoint.calls.some((c) => c.method === "DELETE" && c.path === `/cloudmail/${root}`)).toBe(true);
    expect((await cli("GET", `aps/2/applications/${instance}`)).status).toBe(404);
    expect((await cli("GET", `aps/2/resources/${root}`)).status).toBe(404);
    expect((await cli("GET", "aps/2/applications/")).json).toEqual([]);
  });

  it("apsconnect-cli's calls made by Python requests as hub.py makes them: install over OAuth at a plain-http endpoint on this machine, read back, uninstall", async () => {
    const { stdout } = await run(
      "python3",
      [
        join(import.meta.dirname, "python", "apsconnect_replay.py"),
        t.controller.url,
        t.adminToken,
        APP_META_ID,
        JSON.stringify(SETTINGS),
      ],
      { timeout: 60_000 },
    );
    const out = JSON.parse(stdout) as Record<string, any>;
    expect(out).toMatchObject({
      probe: 200,
      install: 200,
      item_profile: false,
      services: ["cloudmail", "domains", "mailboxes", "tenants"],
      type: ROOT_TYPE,
      type_manager: 200,
      resource_type: 404,
      uninstall: 200,
    });
    expect(out.app_id).toMatch(UUID);
    expect(out.refused.status).toBe(400);
    expect(out.refused.text).toMatch(/^\S+ No package \S+ has version 9\.9 release 1; imported: 1\.0-1\.$/);
    // The endpoint got the install signed with the instance's OAuth key and the settings at top level, then the uninstall.
    expect(out.endpoint).toEqual([
      { method: "POST", path: expect.stringMatching(/^\/cloudmail\/?$/), oauth: true, settings: SETTINGS },
      { method: "DELETE", path: `/cloudmail/${out.app_id}` },
    ]);
  }, 90_000);

  it("the Connect extension's calls, OAuth-signed by Python as its OA client makes them: version probe, package, schemas, types?id=, and an install acting for its root", async () => {
    const hub = await cli("POST", "aps/2/applications/", cliPayload({}, "hub-key"));
    expect(hub.status, hub.text).toBe(200);
    const caFile = join(dir, "controller-ca.pem");
    const endpointCaFile = join(dir, "endpoint-ca.pem");
    writeFileSync(caFile, t.controller.caCert);
    writeFileSync(endpointCaFile, endpoint.ca);
    const { stdout } = await run(
      "python3",
      [
        join(import.meta.dirname, "python", "connect_calls.py"),
        t.controller.url,
        caFile,
        "hub-key",
        "cli-secret",
        hub.json.app.aps.id,
        APP_META_ID,
      ],
      {
        timeout: 60_000,
        env: {
          ...process.env,
          ENDPOINT: endpoint.url,
          ENDPOINT_CA: endpointCaFile,
          SETTINGS: JSON.stringify(SETTINGS),
        },
      },
    );
    const out = JSON.parse(stdout) as Record<string, any>;
    expect(out).toMatchObject({
      aps_version: "2.0.0",
      package: [1, 1],
      tenant_type: "http://cloudmail.example.com/types/tenant/1.0",
      counters: ["mailboxCount", "storage"],
      types: ["http://cloudmail.example.com/types/tenant/1.0"],
    });
    const installed = await cli("GET", `aps/2/applications/${out.installed.instance}`);
    expect(installed.json).toMatchObject({
      app: { aps: { id: out.installed.app } },
      auth: { oauth: { key: "hub-key-2" } },
    });
    for (const id of [out.installed.instance, hub.json.aps.id])
      expect((await cli("DELETE", `aps/2/applications/${id}`)).status).toBe(200);
  }, 90_000);
});
