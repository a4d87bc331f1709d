/**
 * Issue 18: /healthz, /readyz and /metrics of a running controller over HTTPS, on PGlite and
 * PostgreSQL. The database-down and migrations-pending cases run on PostgreSQL, where they can be
 * made for real while the controller runs: its database stops taking connections and its
 * backends are terminated; a row of drizzle's migration table is taken away.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { register as globalRegistry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../helpers/until.ts";
import { databases, startControllerUnderTest, type ControllerUnderTest } from "./controller-harness.ts";
import { installCloudmailAt, startFakeApplication, successOf, type FakeApplication } from "./fake-application.ts";

const T = "http://cloudmail.example.com/types";
const E = "http://aps-standard.org/core/events";
const SUBSCRIPTION = "http://aps-standard.org/types/core/subscription/1.0";

/** The value of one sample of Prometheus text (`name{labels} value`), or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe.each(databases)("health, readiness and metrics on %s", (kind) => {
  const dir = mkdtempSync(join(tmpdir(), "aps-ops-"));
  let t: ControllerUnderTest;
  let app: FakeApplication;

  beforeAll(async () => {
    app = await startFakeApplication(dir);
    t = await startControllerUnderTest(kind, ["types/examples/cloudmail"], { endpointTimeoutMs: 5_000 });
  }, 120_000);
  afterAll(async () => {
    await t?.dispose();
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers /healthz and /readyz without credentials", async () => {
    const health = await t.call("GET", "/healthz");
    expect(health.status).toBe(200);
    expect(health.json).toEqual({ status: "ok", pid: process.pid });
    const ready = await t.call("GET", "/readyz");
    expect(ready.status, ready.text).toBe(200);
    expect(ready.json).toMatchObject({ status: "ready", database: "ok" });
    expect(ready.json.migrations.applied).toBe(ready.json.migrations.total);
    expect(ready.json.migrations.total).toBeGreaterThanOrEqual(10);
  });

  it("counts requests by route pattern and status, never by raw path, in a registry of its own", async () => {
    const ids = ["0d3e1a52-0000-4000-8000-000000000001", "0d3e1a52-0000-4000-8000-000000000002"];
    for (const id of ids)
      expect((await t.call("GET", `/aps/2/resources/${id}`, { token: t.adminToken })).status).toBe(404);
    expect((await t.call("GET", `/aps/2/resources/${ids[0]}`)).status).toBe(401);
    expect((await t.call("GET", "/no/such/thing/0d3e1a52")).status).toBe(404);
    const scraped = await t.call("GET", "/metrics");
    expect(scraped.status).toBe(200);
    expect(scraped.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = scraped.text;
    expect(
      sample(text, "aps_http_requests_total", { method: "GET", route: "/aps/2/resources/:id", status: "404" }),
    ).toBe(2);
    // Refused before its route ran, still counted under it.
    expect(
      sample(text, "aps_http_requests_total", { method: "GET", route: "/aps/2/resources/:id", status: "401" }),
    ).toBe(1);
    expect(sample(text, "aps_http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(1);
    expect(
      sample(text, "aps_http_request_duration_seconds_count", {
        method: "GET",
        route: "/aps/2/resources/:id",
        status: "404",
      }),
    ).toBe(2);
    expect(
      sample(text, "aps_http_requests_total", { method: "GET", route: "/healthz", status: "200" }),
    ).toBeGreaterThanOrEqual(1);
    // No id or raw path became a label.
    expect(text).not.toContain("0d3e1a52");
    expect(text).not.toContain("/no/such");
    // Process figures are there, and prom-client's global registry was never used.
    expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(await globalRegistry.getMetricsAsJSON()).toEqual([]);
  });

  it("counts calls to the application by outcome, and reads the task queue and the event outbox on each scrape", async () => {
    await installCloudmailAt(t, app);
    const admin = (method: string, path: string, body?: unknown) =>
      t.call(method, path, { token: t.adminToken, ...(body === undefined ? {} : { body }) });
    const account = (
      await admin("POST", "/aps/2/resources", {
        aps: { type: "http://aps-standard.org/types/core/account/1.0" },
        companyName: "C",
        addressPostal: {},
      })
    ).json.aps.id;
    const newTenant = async () => {
      const sub = (await admin("POST", "/aps/2/resources", { aps: { type: SUBSCRIPTION } })).json.aps.id;
      return admin("POST", "/aps/2/resources", {
        aps: { type: `${T}/tenant/1.0` },
        account: { aps: { id: account } },
        subscription: { aps: { id: sub } },
      });
    };
    const before = (await t.call("GET", "/metrics")).text;
    const twoXx = sample(before, "aps_application_calls_total", { method: "POST", outcome: "2xx" }) ?? 0;

    const tenant = await newTenant();
    expect(tenant.status, tenant.text).toBe(201);
    app.answer = (c) =>
      c.method === "PUT" ? { status: 500, body: { message: "down for maintenance" } } : successOf(c);
    expect((await admin("PUT", `/aps/2/resources/${tenant.json.aps.id}`, { retentionDays: 90 })).status).toBe(500);
    // A provisioning the application accepts for later (202): a task waits in the queue.
    app.answer = (c) => (c.method === "POST" ? { status: 202, body: {} } : successOf(c));
    expect((await newTenant()).status).toBe(202);
    // A notification the application keeps refusing: it waits in the outbox.
    app.answer = successOf;
    const tenantId = tenant.json.aps.id as string;
    const subscribed = await admin("POST", `/aps/2/resources/${tenantId}/aps/subscriptions`, {
      event: `${E}/available`,
      source: { type: `${T}/domain/1.0` },
      handler: "onDomainLinked",
    });
    expect(subscribed.status, subscribed.text).toBe(200);
    app.answer = (c) => (c.path.includes("onDomainLinked") ? { status: 500 } : successOf(c));
    expect(
      (
        await admin("POST", "/aps/2/resources", {
          aps: { type: `${T}/domain/1.0` },
          name: "example.org",
          tenant: { aps: { id: tenantId } },
        })
      ).status,
    ).toBe(201);
    await until("the notification to be refused once", () => app.calls.some((c) => c.path.includes("onDomainLinked")));

    const text = (await t.call("GET", "/metrics")).text;
    expect(sample(text, "aps_application_calls_total", { method: "POST", outcome: "2xx" })).toBeGreaterThanOrEqual(
      twoXx + 2,
    );
    expect(sample(text, "aps_application_calls_total", { method: "PUT", outcome: "5xx" })).toBe(1);
    expect(sample(text, "aps_application_call_duration_seconds_count", { method: "PUT", outcome: "5xx" })).toBe(1);
    expect(sample(text, "aps_application_calls_total", { method: "POST", outcome: "5xx" })).toBeGreaterThanOrEqual(1);
    expect(sample(text, "aps_task_queue_depth")).toBe(1);
    expect(sample(text, "aps_event_outbox_depth", { state: "pending" })).toBe(1);
    expect(sample(text, "aps_event_outbox_depth", { state: "dead" })).toBe(0);
    expect(text).not.toContain(tenantId);
    app.answer = successOf;
  }, 60_000);

  // Once is enough: the registries do not depend on the database.
  it.runIf(kind === "pglite")(
    "keeps the counts of each controller apart (two in one process)",
    async () => {
      const other = await startControllerUnderTest("pglite", ["test/fixtures/controller/notes"]);
      try {
        for (let i = 0; i < 3; i++) await other.call("GET", "/aps/2/types", { token: other.adminToken });
        const mine = (await t.call("GET", "/metrics")).text;
        const theirs = (await other.call("GET", "/metrics")).text;
        expect(sample(theirs, "aps_http_requests_total", { method: "GET", route: "/aps/2/types", status: "200" })).toBe(
          3,
        );
        expect(
          sample(mine, "aps_http_requests_total", { method: "GET", route: "/aps/2/types", status: "200" }),
        ).toBeUndefined();
        expect(
          sample(theirs, "aps_http_requests_total", { method: "GET", route: "/aps/2/resources/:id", status: "404" }),
        ).toBeUndefined();
      } finally {
        await other.dispose();
      }
    },
    60_000,
  );
});

describe.skipIf(!process.env.DATABASE_URL)("readiness when the database fails (PostgreSQL)", () => {
  let t: ControllerUnderTest;
  let name = "";
  const server = () => postgres(process.env.DATABASE_URL!, { onnotice: () => {}, max: 1 });

  beforeAll(async () => {
    t = await startControllerUnderTest("postgres", ["test/fixtures/controller/notes"]);
    name = new URL(t.databaseUrl!).pathname.slice(1);
  }, 60_000);
  afterAll(async () => {
    const admin = server();
    await admin.unsafe(`alter database ${name} allow_connections true`).finally(() => admin.end());
    await t?.dispose();
  });

  it("answers 503 'database unreachable' while the database refuses connections, and 200 again once it takes them", async () => {
    expect((await t.call("GET", "/readyz")).status).toBe(200);
    const admin = server();
    try {
      // No new connections, and the controller's open ones ended by the server.
      await admin.unsafe(`alter database ${name} allow_connections false`);
      await admin.unsafe(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`,
      );
      const started = Date.now();
      const down = await t.call("GET", "/readyz");
      expect(down.status, down.text).toBe(503);
      expect(down.json).toMatchObject({
        code: 503,
        type: "ServiceUnavailable",
        error: "ServiceUnavailable",
        status: "not ready",
        database: "unreachable",
      });
      expect(down.json.message).toMatch(/^database unreachable/);
      // It says why in the log, not to the unauthenticated caller.
      expect(down.text).not.toContain(name);
      expect(Date.now() - started).toBeLessThan(2_500);
      // Alive all the same: liveness does not ask the database.
      expect((await t.call("GET", "/healthz")).status).toBe(200);
      const scraped = await t.call("GET", "/metrics");
      expect(scraped.status).toBe(200);
      expect(sample(scraped.text, "aps_task_queue_depth")).toBeNaN();
      expect(sample(scraped.text, "aps_event_outbox_depth", { state: "pending" })).toBeNaN();

      await admin.unsafe(`alter database ${name} allow_connections true`);
      const up = await until("/readyz to answer 200 again", async () => {
        const r = await t.call("GET", "/readyz");
        return r.status === 200 && r;
      });
      expect(up.json.status).toBe("ready");
      // The pool's other connections come back on their own next use: the gauges do once one scrape gets through.
      await until(
        "the queue gauge to be read again",
        async () => sample((await t.call("GET", "/metrics")).text, "aps_task_queue_depth") === 0,
        10_000,
      );
    } finally {
      await admin.unsafe(`alter database ${name} allow_connections true`);
      await admin.end();
    }
  }, 30_000);

  it("answers 503 'migrations pending' when the database lacks a migration of this controller", async () => {
    const [newest] = await t.sql(
      "select id, hash, created_at from drizzle.__drizzle_migrations order by created_at desc limit 1",
    );
    await t.sql(`delete from drizzle.__drizzle_migrations where id = ${Number(newest!.id)}`);
    try {
      const pending = await t.call("GET", "/readyz");
      expect(pending.status, pending.text).toBe(503);
      expect(pending.json).toMatchObject({
        code: 503,
        type: "ServiceUnavailable",
        status: "not ready",
        database: "ok",
        migrations: { pending: 1 },
      });
      expect(pending.json.migrations.applied).toBe(pending.json.migrations.total - 1);
      expect(pending.json.message).toMatch(/^migrations pending: 1 of \d+ are not applied/);
    } finally {
      await t.sql(
        `insert into drizzle.__drizzle_migrations (id, hash, created_at) values (${Number(newest!.id)}, '${String(newest!.hash)}', ${String(newest!.created_at)})`,
      );
    }
    expect((await t.call("GET", "/readyz")).status).toBe(200);
  });
});
