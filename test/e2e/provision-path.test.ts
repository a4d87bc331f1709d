/**
 * Issue 28 item 4: where provisioning goes (runtime/controller/forward/provision-path.ts). The
 * controller sends `POST <endpoint>/<service>` first, as the platform and FastAPI connectors do; an
 * endpoint written to the APS documents, which route only `POST <endpoint>/<service>/`, answers
 * that with a 404, a 405 (a route for other methods only) or a redirect (Flask's 308, Starlette's
 * 307), and gets the call again there. Which form an instance's endpoint routes is remembered in
 * the controller's memory, so the next provisioning goes straight to it. Every other answer is
 * final, and an application's own 404 still reaches the caller.
 *
 * One controller over HTTPS, one fake endpoint (test/e2e/fake-application.ts) whose routing each
 * test sets; each test installs an instance of its own there and removes it at the end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../helpers/until.ts";
import { databases, startControllerUnderTest, type ControllerUnderTest } from "./controller-harness.ts";
import {
  startFakeApplication,
  successOf,
  type Answer,
  type FakeApplication,
  type ReceivedCall,
} from "./fake-application.ts";

const T = "http://cloudmail.example.com/types";
const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";
const SUBSCRIPTION = "http://aps-standard.org/types/core/subscription/1.0";
const SETTINGS = { apiEndpoint: "https://api.example", apiKey: "key-0123456789abcdef", apiSecret: "secret-0123456789" };

/** A provisioning call to a collection, and in which form. */
const isBare = (c: ReceivedCall) => c.method === "POST" && /^\/[^/]+$/.test(c.path);
const isSlash = (c: ReceivedCall) => c.method === "POST" && /^\/[^/]+\/$/.test(c.path);

/** How a framework refuses the form it does not route: the redirect points at the other one. */
function refusal(status: number, call: ReceivedCall): Answer {
  if (status >= 300 && status < 400)
    return { status, headers: { location: call.path.endsWith("/") ? call.path.slice(0, -1) : `${call.path}/` } };
  return { status, body: { detail: status === 405 ? "Method Not Allowed" : "Not Found" } };
}

/** An endpoint written to the documents: provisioning only at `/<service>/`; `POST /<service>` refused with `status`. */
const specStrict = (status: number) => (call: ReceivedCall) => (isBare(call) ? refusal(status, call) : successOf(call));
/** A FastAPI endpoint: provisioning only at `/<service>`; `/<service>/` redirected there (307). */
const fastApi = (call: ReceivedCall) => (isSlash(call) ? refusal(307, call) : successOf(call));

describe.each(databases)("provisioning path forms on %s", (kind) => {
  let t: ControllerUnderTest;
  let app: FakeApplication;
  let packageId = "";
  let account = "";
  const dir = mkdtempSync(join(tmpdir(), "aps-provision-path-"));

  const admin = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { token: t.adminToken, ...(body === undefined ? {} : { body }) });
  const install = async () => {
    const r = await admin("POST", "/aps/2/instances", {
      package: packageId,
      endpoint: app.url,
      endpointCa: app.ca,
      settings: SETTINGS,
    });
    expect(r.status, r.text).toBe(201);
    return r.json.id as string;
  };
  const provisionTenant = async () => {
    const sub = (await admin("POST", "/aps/2/resources", { aps: { type: SUBSCRIPTION } })).json.aps.id;
    return admin("POST", "/aps/2/resources", {
      aps: { type: `${T}/tenant/1.0` },
      account: { aps: { id: account } },
      subscription: { aps: { id: sub } },
    });
  };
  const tenants = async () =>
    (await admin("GET", `/aps/2/resources?implementing(${encodeURIComponent(`${T}/tenant/1.0`)})`)).json
      .length as number;
  /** The provisioning calls the endpoint got for `instance`: method, path and status. */
  const provisioningCalls = (instance: string) =>
    app.calls.filter((c) => c.headers["aps-instance-id"] === instance && (isBare(c) || isSlash(c)));
  const uninstall = async (instance: string) => {
    app.answer = successOf;
    expect((await admin("DELETE", `/aps/2/instances/${instance}?force=true`)).status).toBe(200);
  };

  beforeAll(async () => {
    t = await startControllerUnderTest(kind, ["types/examples/cloudmail"], { endpointTimeoutMs: 5000 });
    app = await startFakeApplication(dir);
    packageId = (await admin("GET", "/aps/2/packages")).json.find((p: { name: string }) => p.name === "CloudMail").id;
    account = (
      await admin("POST", "/aps/2/resources", { aps: { type: ACCOUNT }, companyName: "Customer", addressPostal: {} })
    ).json.aps.id;
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    [404, "nothing routed"],
    [405, "a route for other methods"],
    [308, "Flask/Werkzeug's redirect to the rule with a slash"],
    [307, "Starlette's redirect_slashes"],
  ])(
    "serves an endpoint that routes only POST /<service>/ and answers POST /<service> with %i (%s): one refused call per instance, then straight there",
    async (status) => {
      app.answer = specStrict(status);
      const instance = await install();
      const first = await provisionTenant();
      expect(first.status, first.text).toBe(201);
      const second = await provisionTenant();
      expect(second.status, second.text).toBe(201);
      const calls = provisioningCalls(instance);
      // The install found the form; both tenants went straight to it.
      expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
        "POST /cloudmail",
        "POST /cloudmail/",
        "POST /tenants/",
        "POST /tenants/",
      ]);
      expect(calls.filter(isBare)).toHaveLength(1);
      // The second install call is the same call: same resource id, same transaction, same body.
      expect(calls[1]!.body).toEqual(calls[0]!.body);
      expect(calls[1]!.headers["aps-transaction-id"]).toBe(calls[0]!.headers["aps-transaction-id"]);
      // The application created each once, and the controller stored what it created.
      expect(
        [...app.created.entries()]
          .filter(([id]) => id === first.json.aps.id || id === second.json.aps.id)
          .map(([, n]) => n),
      ).toEqual([1, 1]);
      expect((await admin("GET", `/aps/2/resources/${second.json.aps.id}`)).status).toBe(200);
      await uninstall(instance);
    },
  );

  it("repeats an accepted provisioning (202) at the form that accepted it", async () => {
    let accepted = 0;
    app.answer = (call) => {
      if (isBare(call)) return refusal(404, call);
      if (call.path === "/tenants/" && accepted++ === 0)
        return { status: 202, headers: { "aps-info": "creating the organization", "aps-retry-timeout": "0" } };
      return successOf(call);
    };
    const instance = await install();
    const r = await provisionTenant();
    expect(r.status, r.text).toBe(202);
    const id = r.json.aps.id as string;
    await until(
      "the task to finish",
      async () => (await admin("GET", `/aps/2/resources/${id}`)).json.aps.status === "aps:ready",
      15_000,
    );
    const calls = provisioningCalls(instance).filter((c) => (c.body?.aps as { id?: string } | undefined)?.id === id);
    expect(calls.map((c) => `${c.path} ${String(c.headers["aps-request-phase"])}`)).toEqual([
      "/tenants/ sync",
      "/tenants/ async",
    ]);
    await uninstall(instance);
  });

  it("passes on an application's own 404 when neither form is routed (the documents' form answers), and creates nothing", async () => {
    // A framework's 404 for the form without the slash, the application's for the other.
    app.answer = (call) =>
      isBare(call)
        ? refusal(404, call)
        : isSlash(call)
          ? { status: 404, body: { message: "no such reseller at CloudMail", error: "NotFound" } }
          : successOf(call);
    const calls = app.calls.length;
    const r = await admin("POST", "/aps/2/instances", {
      package: packageId,
      endpoint: app.url,
      endpointCa: app.ca,
      settings: SETTINGS,
    });
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ message: "no such reseller at CloudMail", error: "NotFound" });
    expect(app.calls.slice(calls).map((c) => `${c.method} ${c.path}`)).toEqual(["POST /cloudmail", "POST /cloudmail/"]);
    expect((await admin("GET", "/aps/2/instances")).json).toEqual([]);
  });

  it("passes on an application's 404 from the form it is known to route; a redirect from the other is not an answer", async () => {
    app.answer = fastApi;
    const instance = await install();
    expect(provisioningCalls(instance).map((c) => c.path)).toEqual(["/cloudmail"]);
    const before = await tenants();
    app.answer = (call) => (isBare(call) ? { status: 404, body: { detail: "Account not found" } } : fastApi(call));
    const r = await provisionTenant();
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ detail: "Account not found" });
    // Sent to the other form once (a 404 cannot have created anything), which redirected.
    expect(provisioningCalls(instance).map((c) => c.path)).toEqual(["/cloudmail", "/tenants", "/tenants/"]);
    expect(await tenants()).toBe(before);
    // Nothing to undo: no DELETE followed.
    expect(app.calls.filter((c) => c.headers["aps-instance-id"] === instance && c.method === "DELETE")).toEqual([]);
    await uninstall(instance);
  });

  it.each([400, 409, 500, 503])(
    "sends a provisioning answered %i once: the endpoint may have acted on it",
    async (status) => {
      app.answer = successOf;
      const instance = await install();
      const before = await tenants();
      app.answer = (call) => (isBare(call) ? { status, body: { message: `refused with ${status}` } } : successOf(call));
      const r = await provisionTenant();
      expect(r.status).toBe(status);
      expect(r.json).toEqual({ message: `refused with ${status}` });
      expect(provisioningCalls(instance).map((c) => c.path)).toEqual(["/cloudmail", "/tenants"]);
      expect(await tenants()).toBe(before);
      await uninstall(instance);
    },
  );
});
