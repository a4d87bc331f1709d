/**
 * Issue 18: every log line of a request carries its request id (the caller's `X-Request-ID` when
 * well formed, else a new one, echoed in the reply), and the APS transaction where there is one:
 * in the controller's log and in the connector runtime's, which gets the controller's request id
 * with the call. Over real HTTPS, with a real connector (runtime/connector) as the application.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cloudmailServices } from "../../generated/connector/examples/cloudmail/index.gen.ts";
import { createConnectorApp } from "../../runtime/connector/app.ts";
import { controllerClient } from "../../runtime/connector/controller-client.ts";
import { fileCredentialStore } from "../../runtime/connector/credentials.ts";
import { ConnectorError } from "../../runtime/connector/replies.ts";
import { startConnector, type RunningConnector } from "../../runtime/connector/serve.ts";
import { ensureControllerTls } from "../../runtime/common/certificate-authority.ts";
import { startControllerUnderTest, type ControllerUnderTest } from "../e2e/controller-harness.ts";

const T = "http://cloudmail.example.com/types";
const SUBSCRIPTION = "http://aps-standard.org/types/core/subscription/1.0";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Line = Record<string, unknown> & { msg: string };
const linesOf = (file: string): Line[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

describe("request ids and APS transactions in the logs", () => {
  const dir = mkdtempSync(join(tmpdir(), "aps-request-log-"));
  const connectorLog = join(dir, "connector.log");
  const credentials = fileCredentialStore(join(dir, "credentials"));
  let t: ControllerUnderTest;
  let connector: RunningConnector;
  const notUsed = (): never => {
    throw new ConnectorError(501, "not used in this test");
  };
  /** What the tenant handler's context said. */
  let seen: { requestId?: string; transactionId?: string } = {};

  const services = cloudmailServices({
    cloudmail: { provision: () => ({ imapHost: "imap.example.net" }), testConnection: notUsed },
    tenants: {
      // Calls the controller back in the transaction, and logs through the context's logger.
      provision: async (ctx, r) => {
        seen = {
          ...(ctx.requestId ? { requestId: ctx.requestId } : {}),
          ...(ctx.transactionId ? { transactionId: ctx.transactionId } : {}),
        };
        ctx.log?.info({ tenant: r.aps.id }, "creating the organisation");
        const client = controllerClient({
          controllerUri: ctx.controllerUri!,
          credentials: (await credentials.load(ctx.instanceId))!,
          transactionId: ctx.transactionId!,
        });
        expect((await client.get(`/aps/2/resources/${r.aps.id}`)).status).toBeLessThan(500);
        return { organizationId: "org-1" };
      },
      usage: notUsed,
      exportMailboxes: notUsed,
      importMailboxes: notUsed,
      onSubscriptionLimitsChanged: notUsed,
      onDomainLinked: notUsed,
      onMailboxChanged: notUsed,
    },
    domains: { provision: notUsed, verifyDns: notUsed, requiredRecords: notUsed },
    mailboxes: {
      provision: notUsed,
      disable: notUsed,
      enable: notUsed,
      changePassword: notUsed,
      checkAvailability: notUsed,
      storageUsage: notUsed,
      purgeArchive: notUsed,
    },
  });

  beforeAll(async () => {
    t = await startControllerUnderTest("pglite", ["types/examples/cloudmail"], { endpointTimeoutMs: 5_000 });
    const tls = await ensureControllerTls(join(dir, "endpoint-tls"), ["127.0.0.1"]);
    connector = await startConnector(
      createConnectorApp({
        services,
        credentials,
        logger: pino({ level: "info" }, pino.destination({ dest: connectorLog, sync: true })),
      }),
      tls.server,
    );
    const pkg = (await t.call("GET", "/aps/2/packages", { token: t.adminToken })).json.find(
      (p: { name: string }) => p.name === "CloudMail",
    ).id;
    const installed = await t.call("POST", "/aps/2/instances", {
      token: t.adminToken,
      body: {
        package: pkg,
        endpoint: connector.url,
        endpointCa: tls.ca.cert,
        settings: {
          apiEndpoint: "https://api.example",
          apiKey: "key-0123456789abcdef",
          apiSecret: "secret-0123456789",
        },
      },
    });
    expect(installed.status, installed.text).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await connector?.close();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("takes a well-formed X-Request-ID, echoes it, and puts it on the request's line", async () => {
    const reply = await t.call("GET", "/aps/2/types", {
      token: t.adminToken,
      headers: { "X-Request-ID": "lb-7f3a.42" },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers["x-request-id"]).toBe("lb-7f3a.42");
    const line = linesOf(t.logFile).find((l) => l.requestId === "lb-7f3a.42");
    expect(line).toMatchObject({
      msg: "request",
      method: "GET",
      path: "/aps/2/types",
      route: "/aps/2/types",
      status: 200,
    });
  });

  it("replaces an ill-formed or missing one with a new UUID, also on error replies", async () => {
    for (const given of ["has spaces in it", "x".repeat(129), '{"json":1}', undefined]) {
      const reply = await t.call(
        "GET",
        "/aps/2/nothing-here",
        given === undefined ? {} : { headers: { "X-Request-ID": given } },
      );
      expect(reply.status).toBe(401);
      const id = reply.headers["x-request-id"] as string;
      expect(id).toMatch(UUID);
      expect(
        linesOf(t.logFile)
          .filter((l) => l.requestId === id)
          .map((l) => l.status),
      ).toEqual([401]);
    }
    // Each request its own.
    const [a, b] = await Promise.all([t.call("GET", "/healthz"), t.call("GET", "/healthz")]);
    expect(a.headers["x-request-id"]).not.toBe(b.headers["x-request-id"]);
  });

  it("follows a provisioning from the controller to the connector and back: one request id, one transaction", async () => {
    const admin = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
      t.call(method, path, { token: t.adminToken, body, headers });
    const account = (
      await admin("POST", "/aps/2/resources", {
        aps: { type: "http://aps-standard.org/types/core/account/1.0" },
        companyName: "C",
        addressPostal: {},
      })
    ).json.aps.id;
    const sub = (await admin("POST", "/aps/2/resources", { aps: { type: SUBSCRIPTION } })).json.aps.id;
    const requestId = "trace-0123456789abcdef";
    const tenant = await admin(
      "POST",
      "/aps/2/resources",
      { aps: { type: `${T}/tenant/1.0` }, account: { aps: { id: account } }, subscription: { aps: { id: sub } } },
      { "X-Request-ID": requestId },
    );
    expect(tenant.status, tenant.text).toBe(201);
    expect(tenant.headers["x-request-id"]).toBe(requestId);

    // The connector's handler saw the controller's request id and the transaction it started.
    expect(seen.requestId).toBe(requestId);
    const transactionId = seen.transactionId!;
    expect(transactionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    // Controller: the forwarded call and the request line, both with the request id and the transaction.
    const mine = linesOf(t.logFile).filter((l) => l.requestId === requestId);
    expect(mine.map((l) => l.msg)).toEqual(["application call", "request"]);
    expect(mine.every((l) => l.transactionId === transactionId)).toBe(true);
    expect(mine[0]).toMatchObject({ method: "POST", path: "/tenants", status: 200, outcome: "2xx" });
    expect(mine[1]).toMatchObject({ method: "POST", path: "/aps/2/resources", route: "/aps/2/resources", status: 201 });
    // The application's call back in that transaction: a request of its own, in the same transaction.
    const callback = linesOf(t.logFile).find(
      (l) =>
        l.msg === "request" && l.path === `/aps/2/resources/${tenant.json.aps.id}` && l.transactionId === transactionId,
    );
    expect(callback).toBeDefined();
    expect(callback!.requestId).not.toBe(requestId);

    // Connector: its request line and the handler's own line carry both.
    const theirs = linesOf(connectorLog).filter((l) => l.requestId === requestId);
    expect(theirs.map((l) => l.msg)).toEqual(["creating the organisation", "request"]);
    expect(theirs.every((l) => l.transactionId === transactionId)).toBe(true);
    expect(theirs[1]).toMatchObject({ method: "POST", path: "/tenants", status: 200, phase: "sync" });
  });

  it("gives the install call the id of the request that installed the instance", async () => {
    const installs = linesOf(connectorLog).filter((l) => l.msg === "request" && l.path === "/cloudmail");
    expect(installs).toHaveLength(1);
    const install = installs[0]!;
    expect(
      linesOf(t.logFile).some(
        (l) => l.msg === "request" && l.path === "/aps/2/instances" && l.requestId === install.requestId,
      ),
    ).toBe(true);
    expect(typeof install.transactionId).toBe("string");
  });
});
