import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnectorApp } from "../../runtime/connector/app.ts";
import type { ApsCallContext } from "../../runtime/connector/context.ts";
import { fileCredentialStore } from "../../runtime/connector/credentials.ts";
import { accepted } from "../../runtime/connector/replies.ts";
import { startConnector, type RunningConnector } from "../../runtime/connector/serve.ts";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { ensureControllerTls } from "../../runtime/common/certificate-authority.ts";
import { httpsClient } from "../helpers/https-client.ts";
import { until } from "../helpers/until.ts";
import { databases } from "./controller-harness.ts";
import { killHard, serveProcess, type ServeProcess } from "./serve-process.ts";
import { scratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";

const T = "http://cloudmail.example.com/types";
/** Seconds the application asks the controller to wait before the last attempt. */
const RETRY_BEFORE_LAST_S = 2;

describe.each(databases)("asynchronous provisioning across a controller crash on %s", (kind) => {
  const dir = mkdtempSync(join(tmpdir(), "aps-async-"));
  const dataDir = join(dir, "data");
  let database: ScratchDatabase | undefined;
  let connector: RunningConnector;
  let endpointCa = "";
  const tenantCalls: { phase: string; transaction?: string }[] = [];
  let firstAsync!: () => void;
  const firstAsyncSeen = new Promise<void>((r) => (firstAsync = r));
  let controller: ServeProcess | undefined;

  beforeAll(async () => {
    if (kind === "postgres") database = await scratchDatabase("aps_async");
    const tls = await ensureControllerTls(join(dir, "endpoint"), ["127.0.0.1"]);
    endpointCa = tls.ca.cert;
    const app = createConnectorApp({
      credentials: fileCredentialStore(join(dir, "credentials")),
      services: {
        cloudmail: { provision: () => ({}) },
        tenants: {
          // 202 twice, then done: sync -> async -> async. The second 202 asks for a longer wait:
          // the test kills the controller in it, and a restart takes longer anyway.
          provision: (ctx: ApsCallContext) => {
            tenantCalls.push({ phase: ctx.phase, ...(ctx.transactionId ? { transaction: ctx.transactionId } : {}) });
            if (tenantCalls.length === 2) firstAsync();
            if (tenantCalls.length < 3)
              return accepted(
                `creating the organisation, step ${tenantCalls.length}`,
                tenantCalls.length === 1 ? 1 : RETRY_BEFORE_LAST_S,
                { contractStart: `step-${tenantCalls.length}` },
              );
            return { organizationId: "org-async" };
          },
        },
      },
    });
    connector = await startConnector(app, tls.server);
  }, 60_000);

  afterAll(async () => {
    // Gone before its data folder is removed.
    if (controller) await killHard(controller);
    await connector?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("goes aps:provisioning -> aps:ready with sync, async, async, surviving a SIGKILL between attempts", async () => {
    controller = await serveProcess(dataDir, database?.url);
    let call = httpsClient(await controller.url, readFileSync(join(dataDir, "tls/ca.crt"), "utf8"));
    const adminToken = readFileSync(join(dataDir, "admin.token"), "utf8").trim();
    const pkg = (await call("GET", "/aps/2/packages", { token: adminToken })).json.find(
      (p: { name: string }) => p.name === "CloudMail",
    ).id;
    const installed = await call("POST", "/aps/2/instances", {
      token: adminToken,
      body: {
        package: pkg,
        endpoint: connector.url,
        endpointCa,
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
    const sub = await call("POST", "/aps/2/resources", {
      token,
      body: { aps: { type: "http://aps-standard.org/types/core/subscription/1.0" } },
    });

    const created = await call("POST", "/aps/2/resources", {
      token,
      body: {
        aps: { type: `${T}/tenant/1.0` },
        account: { aps: { id: account.json.aps.id } },
        subscription: { aps: { id: sub.json.aps.id } },
      },
    });
    expect(created.status, created.text).toBe(202);
    expect(created.headers["aps-info"]).toBe("creating the organisation, step 1");
    expect(created.json.aps.status).toBe("aps:provisioning");
    const id = created.json.aps.id;

    // After the first async attempt (answered 202 again) is recorded, kill the controller
    // outright. Not during an attempt: the task would stay claimed, and the next process would
    // wait for the claim's lease (60 s) first.
    await firstAsyncSeen;
    await until("the task to wait for its next attempt", async () => {
      const task = (
        (await call("GET", "/aps/2/tasks", { token: adminToken })).json as { info: string; retryAt: string }[]
      )[0];
      return task?.info === "creating the organisation, step 2" && Date.parse(task.retryAt) - Date.now() > 500;
    });
    await killHard(controller);
    expect(tenantCalls.map((c) => c.phase)).toEqual(["sync", "async"]);

    controller = await serveProcess(dataDir, database?.url);
    call = httpsClient(await controller.url, readFileSync(join(dataDir, "tls/ca.crt"), "utf8"));
    let resource: { aps: { status: string }; organizationId?: string } | undefined;
    for (let i = 0; i < 100; i++) {
      resource = (await call("GET", `/aps/2/resources/${id}`, { token })).json;
      if (resource?.aps.status === "aps:ready") break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(resource).toMatchObject({
      aps: { status: "aps:ready" },
      organizationId: "org-async",
      contractStart: "step-2",
    });
    expect(tenantCalls.map((c) => c.phase)).toEqual(["sync", "async", "async"]);
    // One business transaction throughout.
    expect(new Set(tenantCalls.map((c) => c.transaction)).size).toBe(1);
    const tasks = (await call("GET", "/aps/2/tasks", { token: adminToken })).json;
    expect(tasks).toEqual([
      expect.objectContaining({
        resource: id,
        operation: "provision",
        state: "done",
        attempts: 2,
        info: "creating the organisation, step 2",
      }),
    ]);
    const tenants = (
      await call("GET", `/aps/2/resources?implementing(${encodeURIComponent(`${T}/tenant/1.0`)})`, { token })
    ).json;
    expect(tenants).toHaveLength(1);
    // Give a duplicate attempt the chance to show up: none does.
    await new Promise((r) => setTimeout(r, 1500));
    expect(tenantCalls).toHaveLength(3);
  }, 120_000); // two starts, the first creating the embedded database: up to ~39 s on a loaded 2-core machine
});
