/**
 * The controller and the application agree under concurrency and failures (issue 15, items
 * 9-13 and 15), on PGlite and PostgreSQL, against a fake application (fake-application.ts) that
 * can be slow and answer anything.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { isErrorShape } from "../fuzz/in-process-controller.ts";
import { databases, startBehaviourController, type BehaviourController } from "./harness.ts";
import { installCloudmailAt, startFakeApplication, successOf, type FakeApplication } from "../e2e/fake-application.ts";

const T = "http://cloudmail.example.com/types";
const SUBSCRIPTION = "http://aps-standard.org/types/core/subscription/1.0";
/** The values tenant.retentionDays allows. */
const RETENTION = [30, 90, 365, 3650];

describe.each(databases)("consistency with the application on %s", (kind) => {
  const dir = mkdtempSync(join(tmpdir(), "aps-consistency-"));
  let t: BehaviourController;
  let app: FakeApplication;
  let token = "";
  let accountId = "";
  const call = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { token, ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    app = await startFakeApplication(dir);
    t = await startBehaviourController(kind, ["types/examples/cloudmail"], { endpointTimeoutMs: 5_000 });
    await installCloudmailAt(t, app);
    const account = await t.call("POST", "/aps/2/resources", {
      token: t.adminToken,
      body: { aps: { type: "http://aps-standard.org/types/core/account/1.0" }, companyName: "C", addressPostal: {} },
    });
    accountId = account.json.aps.id;
    token = await new TokenService(loadKeys(t.dataDir).token).mint({ accountId });
  }, 120_000);

  afterAll(async () => {
    await t?.dispose();
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    app.answer = successOf;
    app.calls.length = 0;
  });

  async function newTenant(): Promise<string> {
    const sub = await call("POST", "/aps/2/resources", { aps: { type: SUBSCRIPTION } });
    const tenant = await call("POST", "/aps/2/resources", {
      aps: { type: `${T}/tenant/1.0` },
      account: { aps: { id: accountId } },
      subscription: { aps: { id: sub.json.aps.id } },
    });
    expect(tenant.status, tenant.text).toBe(201);
    return tenant.json.aps.id as string;
  }
  const configuresOf = (id: string) => app.calls.filter((c) => c.method === "PUT" && c.path === `/tenants/${id}`);

  it("item 9: of 100 configures with one revision exactly one reaches the application, and it is the one stored", async () => {
    const id = await newTenant();
    const revision = (await call("GET", `/aps/2/resources/${id}`)).json.aps.revision;
    // Slow enough that every request arrives while the first is at the application.
    app.answer = (c) => (c.method === "PUT" ? { status: 200, body: {}, delayMs: 50 } : successOf(c));
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        call("PUT", `/aps/2/resources/${id}`, { aps: { revision }, retentionDays: RETENTION[i % 4] }),
      ),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(99);
    expect(configuresOf(id)).toHaveLength(1);
    const stored = (await call("GET", `/aps/2/resources/${id}`)).json;
    expect(stored.retentionDays).toBe(configuresOf(id)[0]!.body!.retentionDays);
    expect(stored.aps.revision).toBe(revision + 1);
  }, 60_000);

  it("item 10: concurrent configures without a revision are serialised, not failed (application and controller types)", async () => {
    const id = await newTenant();
    const start = (await call("GET", `/aps/2/resources/${id}`)).json.aps.revision;
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => call("PUT", `/aps/2/resources/${id}`, { retentionDays: RETENTION[i % 4] })),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(40).fill(200));
    const stored = (await call("GET", `/aps/2/resources/${id}`)).json;
    expect(stored.aps.revision).toBe(start + 40);
    // The application's last applied change is the stored one.
    expect(configuresOf(id)).toHaveLength(40);
    expect(stored.retentionDays).toBe(configuresOf(id).at(-1)!.body!.retentionDays);

    const sub = (await call("POST", "/aps/2/resources", { aps: { type: SUBSCRIPTION } })).json.aps.id;
    const subReplies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => call("PUT", `/aps/2/resources/${sub}`, { name: `plan ${i}` })),
    );
    expect(subReplies.map((r) => r.status)).toEqual(Array(40).fill(200));
    expect((await call("GET", `/aps/2/resources/${sub}`)).json.aps.revision).toBe(41);
  }, 60_000);

  it("item 11: a resource being unprovisioned accepts no new links; nothing is left without its strong link", async () => {
    const tenant = await newTenant();
    app.answer = (c) =>
      c.method === "DELETE" && c.path === `/tenants/${tenant}` ? { status: 204, delayMs: 600 } : successOf(c);
    const removal = call("DELETE", `/aps/2/resources/${tenant}`);
    await new Promise((r) => setTimeout(r, 200));
    const domains = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        call("POST", "/aps/2/resources", {
          aps: { type: `${T}/domain/1.0` },
          name: `d${i}.example.com`,
          tenant: { aps: { id: tenant } },
        }),
      ),
    );
    expect((await removal).status).toBe(204);
    for (const d of domains) {
      expect(d.status, d.text).toBe(409);
      expect(isErrorShape(409, d.json)).toBe(true);
    }
    const left = (await call("GET", `/aps/2/resources?implementing(${encodeURIComponent(`${T}/domain/1.0`)})`))
      .json as unknown[];
    expect(left).toEqual([]);
    // Whatever the application created for them, it was told to remove.
    expect(app.held.get("domains")?.size ?? 0).toBe(0);
  }, 60_000);

  it("item 11: an unprovisioning refused by the application leaves the resource as it was, links allowed again", async () => {
    const tenant = await newTenant();
    app.answer = (c) => (c.method === "DELETE" ? { status: 500, body: { message: "no" } } : successOf(c));
    expect((await call("DELETE", `/aps/2/resources/${tenant}`)).status).toBe(500);
    expect((await call("GET", `/aps/2/resources/${tenant}`)).json.aps.status).toBe("aps:ready");
    app.answer = successOf;
    const domain = await call("POST", "/aps/2/resources", {
      aps: { type: `${T}/domain/1.0` },
      name: "back.example.com",
      tenant: { aps: { id: tenant } },
    });
    expect(domain.status, domain.text).toBe(201);
    // A strong link holds it now.
    expect((await call("DELETE", `/aps/2/resources/${tenant}`)).status).toBe(409);
  }, 60_000);

  it("item 12: a provisioning whose link target goes meanwhile is a clean 409, and the application removes what it created", async () => {
    const tenant = await newTenant();
    app.answer = (c) =>
      c.method === "POST" && c.path === "/domains" ? { status: 201, body: {}, delayMs: 600 } : successOf(c);
    const domain = call("POST", "/aps/2/resources", {
      aps: { type: `${T}/domain/1.0` },
      name: "late.example.com",
      tenant: { aps: { id: tenant } },
    });
    await new Promise((r) => setTimeout(r, 200));
    expect((await call("DELETE", `/aps/2/resources/${tenant}`)).status).toBe(204);
    const reply = await domain;
    expect(reply.status, reply.text).toBe(409);
    expect(isErrorShape(409, reply.json)).toBe(true);
    const created = app.calls.find((c) => c.method === "POST" && c.path === "/domains")!;
    const createdId = (created.body!.aps as { id: string }).id;
    expect(app.calls.some((c) => c.method === "DELETE" && c.path === `/domains/${createdId}`)).toBe(true);
    expect(app.held.get("domains")?.has(createdId) ?? false).toBe(false);
    expect((await call("GET", `/aps/2/resources/${createdId}`)).status).toBe(404);
  }, 60_000);

  it("item 13: 20 concurrent relinks of a singular relation leave exactly one link", async () => {
    const tenants = await Promise.all(Array.from({ length: 21 }, () => newTenant()));
    const domain = await call("POST", "/aps/2/resources", {
      aps: { type: `${T}/domain/1.0` },
      name: "relinked.example.com",
      tenant: { aps: { id: tenants[0] } },
    });
    expect(domain.status, domain.text).toBe(201);
    const id = domain.json.aps.id;
    const replies = await Promise.all(
      tenants.slice(1).map((to) => call("POST", `/aps/2/resources/${id}/tenant`, { aps: { id: to } })),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
    const links = (
      (await call("GET", `/aps/2/resources/${id}/aps/links`)).json as {
        relation: string;
        direction: string;
        id: string;
      }[]
    ).filter((l) => l.relation === "tenant" && l.direction === "out");
    expect(links).toHaveLength(1);
    expect((await call("GET", `/aps/2/resources/${id}`)).json.tenant.aps.id).toBe(links[0]!.id);
  }, 120_000);

  it.each([206, 205, 304, 201])(
    "item 15: a configure answered %i is a 502 in the controller's error shape, with nothing stored",
    async (status) => {
      const id = await newTenant();
      const before = (await call("GET", `/aps/2/resources/${id}`)).json;
      app.answer = (c) => (c.method === "PUT" ? { status, body: { retentionDays: 3650 } } : successOf(c));
      const reply = await call("PUT", `/aps/2/resources/${id}`, { retentionDays: 365 });
      expect(reply.status, reply.text).toBe(502);
      expect(isErrorShape(502, reply.json)).toBe(true);
      const after = (await call("GET", `/aps/2/resources/${id}`)).json;
      expect(after.retentionDays).toBe(before.retentionDays);
      expect(after.aps.revision).toBe(before.aps.revision);
    },
    60_000,
  );

  it("item 15: a provisioning answered 206 is a 502, nothing is stored, and the application is told to remove it", async () => {
    const sub = await call("POST", "/aps/2/resources", { aps: { type: SUBSCRIPTION } });
    app.answer = (c) => (c.method === "POST" && c.path === "/tenants" ? { status: 206, body: {} } : successOf(c));
    const reply = await call("POST", "/aps/2/resources", {
      aps: { type: `${T}/tenant/1.0` },
      account: { aps: { id: accountId } },
      subscription: { aps: { id: sub.json.aps.id } },
    });
    expect(reply.status, reply.text).toBe(502);
    expect(isErrorShape(502, reply.json)).toBe(true);
    const sent = app.calls.find((c) => c.method === "POST" && c.path === "/tenants")!;
    const id = (sent.body!.aps as { id: string }).id;
    expect((await call("GET", `/aps/2/resources/${id}`)).status).toBe(404);
    expect(app.calls.some((c) => c.method === "DELETE" && c.path === `/tenants/${id}`)).toBe(true);
  }, 60_000);
});
