/**
 * What a configure call carries, read the way real application runtimes read it. The endpoint
 * here answers as each runtime's configure handler does, from the request body alone:
 *
 * - aps-node-runtime builds the resource handed to `configure()` from the body
 *   (odin-public/aps-node-runtime `src/runtime/instance.js:439-460`, `src/aps/resource.js:8-17`)
 *   and answers with that resource serialised whole (`instance.js:476`, `:489`): a handler that
 *   reads a property the change did not touch must find it, and the echoed resource (with `aps`
 *   and links) must be taken back as an answer.
 * - The Connect extension's `PUT /tenant/{id}` parses the body as a whole tenant
 *   (cloudblue/connect-extension-for-cb-commerce `cbcext/api/tenant.py:74-85`,
 *   `cbcext/models/fulfillment_models.py:165-213`): `aps.id`, `aps.subscription`, `aps.type` and
 *   `aps.status` are required, and every counter's `limit` is read, changed or not.
 *
 * FallBall's `PUT /tenant/{id}` is the same case in test/interop/fallball-life.test.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databases, startControllerUnderTest, type ControllerUnderTest } from "../e2e/controller-harness.ts";
import {
  createCloudmailTenant,
  installCloudmailAt,
  startFakeApplication,
  successOf,
  type FakeApplication,
  type ReceivedCall,
} from "../e2e/fake-application.ts";

const MAIL = "http://cloudmail.example.com/types";
type Body = Record<string, any>; // the bodies runtimes read: any member, as they read them

/** aps-node-runtime: `Resource.create(body)`, then `configure(resource)`, then the resource as the answer. */
function nodeRuntimeConfigure(call: ReceivedCall, configure: (resource: Body) => void) {
  const resource: Body = { ...call.body };
  configure(resource);
  return { status: 200, body: resource };
}

/** The Connect extension's `Tenant(body)`: a missing required member is an error answer, as its parser raises. */
function connectTenant(body: Body): { id: string; subscription: string; limits: Record<string, number> } {
  for (const path of ["aps.id", "aps.subscription", "aps.type", "aps.status"]) {
    const value = path.split(".").reduce<any>((v, k) => v?.[k], body);
    if (value === undefined) throw new Error(`Missing required tenant property ${path}`);
  }
  const limits: Record<string, number> = {};
  for (const counter of ["mailboxCount", "storage"]) if (body[counter]) limits[counter] = body[counter].limit;
  return { id: body.aps.id, subscription: body.aps.subscription, limits };
}

describe.each(databases)("configure bodies as real runtimes read them on %s", (kind) => {
  let t: ControllerUnderTest;
  let mail: FakeApplication;
  let tenant = "";
  let subscription = "";
  let mailbox = "";
  const dir = mkdtempSync(join(tmpdir(), "aps-configure-bodies-"));
  const admin = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { token: t.adminToken, ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    t = await startControllerUnderTest(kind, ["types/examples/cloudmail"], { endpointTimeoutMs: 5000 });
    mail = await startFakeApplication(join(dir, "mail"));
    await installCloudmailAt(t, mail);
    ({ subscription, tenant } = await createCloudmailTenant(t, { mailboxCount: { limit: 10 }, storage: { limit: 5 } }));
    const domain = (
      await admin("POST", "/aps/2/resources", {
        aps: { type: `${MAIL}/domain/1.0` },
        name: "example.com",
        tenant: { aps: { id: tenant } },
      })
    ).json.aps.id;
    const m = await admin("POST", "/aps/2/resources", {
      aps: { type: `${MAIL}/mailbox/1.0` },
      localPart: "ann",
      password: "0123456789",
      tenant: { aps: { id: tenant } },
      domain: { aps: { id: domain } },
    });
    expect(m.status, m.text).toBe(201);
    mailbox = m.json.aps.id;
  }, 90_000);
  afterAll(async () => {
    await mail?.close();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("aps-node-runtime: configure() reads a property the change did not touch, and its whole-resource answer is taken", async () => {
    mail.answer = (call) =>
      call.method === "PUT" && call.path === `/mailboxes/${mailbox}`
        ? nodeRuntimeConfigure(call, (resource) => {
            // The handler builds the address from the user name, which this configure does not change.
            resource.address = `${resource.localPart}+${resource.plan}@example.com`;
          })
        : successOf(call);
    const r = await admin("PUT", `/aps/2/resources/${mailbox}`, { plan: "business" });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      plan: "business",
      address: "ann+business@example.com",
      localPart: "ann",
      tenant: { aps: { id: tenant } },
    });
    const read = (await admin("GET", `/aps/2/resources/${mailbox}`)).json;
    expect(read).toMatchObject({
      plan: "business",
      address: "ann+business@example.com",
      localPart: "ann",
      tenant: { aps: { id: tenant } },
    });
    // The echoed `aps` is the resource's own: it changed nothing the controller keeps.
    expect(read.aps).toMatchObject({ id: mailbox, type: `${MAIL}/mailbox/1.0`, status: "aps:ready" });
  });

  it("Connect: PUT /tenant/{id} parses a whole tenant, with aps.subscription and every counter's limit", async () => {
    let parsed: ReturnType<typeof connectTenant> | undefined;
    mail.answer = (call) => {
      if (call.method !== "PUT" || call.path !== `/tenants/${tenant}`) return successOf(call);
      try {
        parsed = connectTenant(call.body ?? {});
        return { status: 200, body: {} };
      } catch (error) {
        return { status: 500, body: { error: "KeyError", message: (error as Error).message } };
      }
    };
    const r = await admin("PUT", `/aps/2/resources/${tenant}`, { storage: { limit: 8 } });
    expect(r.status, r.text).toBe(200);
    expect(parsed).toEqual({ id: tenant, subscription, limits: { mailboxCount: 10, storage: 8 } });
  });
});
