import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cloudmailServices } from "../../generated/connector/examples/cloudmail/index.gen.ts";
import { createConnectorApp } from "../../runtime/connector/app.ts";
import { controllerClient } from "../../runtime/connector/controller-client.ts";
import { fileCredentialStore } from "../../runtime/connector/credentials.ts";
import { ConnectorError } from "../../runtime/connector/replies.ts";
import { startConnector, type RunningConnector } from "../../runtime/connector/serve.ts";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { ensureControllerTls } from "../../runtime/common/certificate-authority.ts";
import { httpsClient } from "../helpers/https-client.ts";
import { databases } from "./controller-harness.ts";
import { killHard, serveProcess, type ServeProcess } from "./serve-process.ts";
import { scratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";

const T = "http://cloudmail.example.com/types";
const SUBSCRIPTION = "http://aps-standard.org/types/core/subscription/1.0";
const CHANGED = "http://aps-standard.org/core/events/changed";
/** Quick retries, and enough of them that a few seconds of downtime never ends in the dead-letter list. */
const RETRIES = ["--event-retry", "0.2", "--event-attempts", "100"];

describe.each(databases)("event delivery across a controller crash on %s", (kind) => {
  const dir = mkdtempSync(join(tmpdir(), "aps-events-crash-"));
  const dataDir = join(dir, "data");
  const credentials = fileCredentialStore(join(dir, "credentials"));
  const received: { serial: number; source: string; subscription: string }[] = [];
  let database: ScratchDatabase | undefined;
  let connector: RunningConnector;
  let endpoint!: { cert: string; key: string; ca: string };
  const processes: ServeProcess[] = [];
  let subscriptionId = "";
  const notUsed = (): never => {
    throw new ConnectorError(501, "not used in this test");
  };

  const app = createConnectorApp({
    credentials,
    services: cloudmailServices({
      cloudmail: { provision: () => ({}), testConnection: notUsed },
      tenants: {
        // The tenant subscribes to changes of subscriptions while it is provisioned.
        provision: async (ctx, r) => {
          const client = controllerClient({
            controllerUri: ctx.controllerUri!,
            credentials: (await credentials.load(ctx.instanceId))!,
            transactionId: ctx.transactionId!,
          });
          const reply = await client.post(`/aps/2/resources/${r.aps.id}/aps/subscriptions`, {
            event: CHANGED,
            source: { type: SUBSCRIPTION },
            handler: "onSubscriptionLimitsChanged",
          });
          if (reply.status !== 200) throw new ConnectorError(500, `subscribing failed: ${reply.status}`);
          subscriptionId = (reply.body as { id: string }).id;
          return {};
        },
        onSubscriptionLimitsChanged: (_ctx, params) =>
          void received.push({
            serial: Number(params.event.serial),
            source: params.event.source!.id!,
            subscription: params.event.subscription!,
          }),
        usage: notUsed,
        exportMailboxes: notUsed,
        importMailboxes: notUsed,
        onDomainLinked: notUsed,
        onMailboxChanged: notUsed,
      },
      domains: { provision: () => ({}), verifyDns: notUsed, requiredRecords: notUsed },
      mailboxes: {
        provision: () => ({}),
        disable: notUsed,
        enable: notUsed,
        changePassword: notUsed,
        checkAvailability: notUsed,
        storageUsage: notUsed,
        purgeArchive: notUsed,
      },
    }),
  });

  beforeAll(async () => {
    if (kind === "postgres") database = await scratchDatabase("aps_events");
    const tls = await ensureControllerTls(join(dir, "endpoint"), ["127.0.0.1"]);
    endpoint = { ...tls.server, ca: tls.ca.cert };
    connector = await startConnector(app, endpoint);
  }, 60_000);

  afterAll(async () => {
    for (const p of processes) await killHard(p);
    await connector?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async () => {
    const p = await serveProcess(dataDir, database?.url, RETRIES);
    processes.push(p);
    return { p, call: httpsClient(await p.url, readFileSync(join(dataDir, "tls/ca.crt"), "utf8")) };
  };
  // Generous: after the downtime the next retry may be seconds away (backoff doubles), and on a
  // loaded 2-core machine a controller process takes seconds to start. Losing nothing is the point here, not speed.
  async function until(what: string, probe: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
    const end = Date.now() + ms;
    while (!(await probe())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; received ${JSON.stringify(received)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it("loses nothing when the controller is killed between the change and the delivery", async () => {
    let { p, call } = await start();
    const adminToken = readFileSync(join(dataDir, "admin.token"), "utf8").trim();
    const pkg = (await call("GET", "/aps/2/packages", { token: adminToken })).json.find(
      (x: { name: string }) => x.name === "CloudMail",
    ).id;
    const installed = await call("POST", "/aps/2/instances", {
      token: adminToken,
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
    const account = await call("POST", "/aps/2/resources", {
      token: adminToken,
      body: { aps: { type: "http://aps-standard.org/types/core/account/1.0" }, companyName: "C", addressPostal: {} },
    });
    const token = await new TokenService(loadKeys(dataDir).token).mint({ accountId: account.json.aps.id });
    const sub = (await call("POST", "/aps/2/resources", { token, body: { aps: { type: SUBSCRIPTION } } })).json.aps.id;
    const tenant = await call("POST", "/aps/2/resources", {
      token,
      body: {
        aps: { type: `${T}/tenant/1.0` },
        account: { aps: { id: account.json.aps.id } },
        subscription: { aps: { id: sub } },
      },
    });
    expect(tenant.status, tenant.text).toBe(201);
    expect(subscriptionId).not.toBe("");

    // The endpoint is down: the changes are committed, their notifications wait in the outbox.
    await connector.close();
    for (let n = 1; n <= 3; n++)
      expect((await call("PUT", `/aps/2/resources/${sub}`, { token, body: { name: `plan ${n}` } })).status).toBe(200);
    // Killed between two attempts: the first notification (the others wait behind it) failed
    // and is not due for a while. A kill during an attempt would leave it claimed, and the
    // next process would wait for the claim's lease (60 s) first.
    await until(
      "the first notification to wait for its next attempt",
      async () => {
        const pending = (await call("GET", "/aps/2/events/pending", { token: adminToken })).json as {
          serial: number | null;
          attempts: number;
          nextAt: string;
        }[];
        const first = pending[0];
        return (
          pending.length === 3 &&
          pending.every((n) => n.serial !== null) &&
          first!.attempts > 0 &&
          Date.parse(first!.nextAt) - Date.now() > 500
        );
      },
      20_000,
    );
    await killHard(p);
    expect(received).toEqual([]);

    connector = await startConnector(app, { ...endpoint, port: connector.port });
    ({ p, call } = await start());
    await until("three notifications", () => received.length >= 3);
    await new Promise((r) => setTimeout(r, 500));
    expect(received).toHaveLength(3);
    expect(received.every((r) => r.subscription === subscriptionId)).toBe(true);
    const serials = received.map((r) => r.serial);
    expect(serials[0]! < serials[1]! && serials[1]! < serials[2]!).toBe(true);
    expect((await call("GET", "/aps/2/events/pending", { token: adminToken })).json).toEqual([]);

    if (kind !== "postgres") return;
    // Two controller processes on one PostgreSQL, changing at the same time: one serial order.
    received.length = 0;
    const second = await start();
    // Twenty subscriptions (one change each, so no change waits for another's revision).
    const subs: string[] = [];
    for (let i = 0; i < 20; i++)
      subs.push((await call("POST", "/aps/2/resources", { token, body: { aps: { type: SUBSCRIPTION } } })).json.aps.id);
    const changes = subs.map((id, i) =>
      (i % 2 ? second.call : call)("PUT", `/aps/2/resources/${id}`, { token, body: { name: `plan ${i}` } }),
    );
    for (const r of await Promise.all(changes)) expect(r.status).toBe(200);
    await until("twenty notifications", () => received.length >= 20);
    await new Promise((r) => setTimeout(r, 500));
    expect(received).toHaveLength(20);
    expect(new Set(received.map((r) => r.source))).toEqual(new Set(subs));
    const order = received.map((r) => r.serial);
    for (let i = 1; i < order.length; i++) expect(order[i]).toBeGreaterThan(order[i - 1]!);
  }, 120_000);
});
