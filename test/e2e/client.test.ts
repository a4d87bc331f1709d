/**
 * The generated client SDK against `aps-gen serve` running as a process, with a connector
 * generated from the same package behind mutual TLS: every controller endpoint through the
 * client's functions, paging across several pages, and each error status as an ApsError.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionAccount } from "../../generated/client/core/index.gen.ts";
import { provisionSubscription } from "../../generated/client/core/index.gen.ts";
import {
  getDomain,
  listDomainMailboxes,
  linkDomainMailboxes,
  provisionDomain,
  unlinkDomainMailboxes,
} from "../../generated/client/examples/cloudmail/index.gen.ts";
import {
  configureMailbox,
  disableMailbox,
  enableMailbox,
  getMailbox,
  listMailboxes,
  listMailboxPages,
  mailboxChangePassword,
  mailboxCheckAvailability,
  mailboxPurgeArchive,
  mailboxQuery,
  provisionMailbox,
  unprovisionMailbox,
} from "../../generated/client/examples/cloudmail/index.gen.ts";
import {
  getTenant,
  listTenantEventSubscriptions,
  provisionTenant,
  subscribeTenant,
  tenantExportMailboxes,
  tenantImportMailboxes,
  tenantUsage,
  unsubscribeTenant,
} from "../../generated/client/examples/cloudmail/index.gen.ts";
import { cloudmailServices } from "../../generated/connector/examples/cloudmail/index.gen.ts";
import { MailboxTypeId, TenantTypeId } from "../../generated/types/examples/cloudmail/index.gen.ts";
import {
  getInstance,
  installInstance,
  listInstances,
  listNotifications,
  listTasks,
  type OutboxNotification,
  reissueCredentials,
  removeTask,
  replayNotifications,
  discardNotification,
  suspendCustomer,
  uninstallInstance,
} from "../../runtime/client/administration.ts";
import {
  configureApplicationResource,
  getApplicationResource,
  listApplicationServices,
  registerResource,
  unregisterResource,
} from "../../runtime/client/application.ts";
import { ApsError } from "../../runtime/client/aps-error.ts";
import {
  getPackage,
  getPackageFile,
  getType,
  importPackage,
  listPackages,
  listTypes,
} from "../../runtime/client/catalog.ts";
import { createClient, send, sendJson, withOptions, type ApsClient } from "../../runtime/client/client.ts";
import { listLinks } from "../../runtime/client/links.ts";
import { nodeDispatcher } from "../../runtime/client/node-tls.ts";
import { postNavigation, uiRuntimeVersion } from "../../runtime/client/ui.ts";
import { createConnectorApp } from "../../runtime/connector/app.ts";
import { fileCredentialStore, splitCertAndKey } from "../../runtime/connector/credentials.ts";
import { accepted, ConnectorError, RawReply } from "../../runtime/connector/replies.ts";
import { startConnector, type RunningConnector } from "../../runtime/connector/serve.ts";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { ensureControllerTls } from "../../runtime/common/certificate-authority.ts";
import { until } from "../helpers/until.ts";
import { databases } from "./controller-harness.ts";
import { serveProcess, type ServeProcess } from "./serve-process.ts";
import { scratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";

const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";

/** The ApsError a call rejects with (fails the test when it resolves or rejects with something else). */
async function apsErrorOf(call: Promise<unknown>): Promise<ApsError> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome))
    throw new Error(
      `expected an ApsError, got ${JSON.stringify(outcome.value, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))}`,
    );
  expect(outcome.error).toBeInstanceOf(ApsError);
  return outcome.error as ApsError;
}

describe.each(databases)("the generated client against aps-gen serve on %s", (kind) => {
  const dir = mkdtempSync(join(tmpdir(), "aps-client-"));
  const dataDir = join(dir, "data");
  let database: ScratchDatabase | undefined;
  let controller: ServeProcess;
  let connector: RunningConnector;
  let endpointCa = "";
  let admin: ApsClient;
  let owner: ApsClient;
  let base = "";
  let dispatcher: ReturnType<typeof nodeDispatcher>;
  const ids = { instance: "", package: "", account: "", tenant: "", domain: "", mailbox: "" };
  /** What reached the endpoint's handlers. */
  const calls: string[] = [];
  /** Serials of the notifications the tenant's event handler took; it refuses them while failEvents is set. */
  const delivered: number[] = [];
  let failEvents = false;

  const services = cloudmailServices({
    cloudmail: { provision: () => ({ imapHost: "imap.example.net" }), testConnection: () => ({ reachable: true }) },
    tenants: {
      provision: () => ({ organizationId: "org-client" }),
      usage: (_ctx, params) => ({ period: params.period, trafficIn: params.top ?? 0 }),
      exportMailboxes: () => new RawReply("text/csv", "address,quota\na@example.com,5120\n"),
      importMailboxes: (_ctx, params) => ({
        created: new TextDecoder().decode(params.file).trim().split("\n").length - 1,
        skipped: [],
      }),
      onSubscriptionLimitsChanged: () => undefined,
      onDomainLinked: () => undefined,
      onMailboxChanged: (_ctx, params) => {
        if (failEvents) throw new ConnectorError(500, "the handler is down");
        delivered.push(Number(params.event.serial));
      },
      links: { mailboxes: { linked: () => undefined, unlinked: () => undefined } },
    },
    domains: {
      provision: (ctx, r) => {
        // Accepted, then refused when the controller asks again: the task fails.
        if (r.name === "later.example") {
          if (ctx.phase === "sync") return accepted("creating the zone", 1);
          throw new ConnectorError(500, "the zone could not be created");
        }
        if (r.name === "fail.example") throw new ConnectorError(500, "the DNS provider refused the zone");
        if (r.name === "hang.example") return new Promise(() => {});
        return { verified: true };
      },
      verifyDns: () => ({ verified: true, missing: [] }),
      requiredRecords: () => [],
      links: { mailboxes: { linked: () => undefined, unlinked: () => undefined } },
    },
    mailboxes: {
      provision: (_ctx, r) => {
        calls.push(`provision ${r.localPart}`);
        return { address: `${r.localPart}@example.com`, used: 0 };
      },
      configure: () => ({ used: 7 }),
      unprovision: () => void calls.push("unprovision"),
      disable: () => void calls.push("disable"),
      enable: () => void calls.push("enable"),
      changePassword: (_ctx, params) => params.request.newPassword.length >= 10,
      checkAvailability: (_ctx, params) => ({
        available: params.query.localPart !== "ann",
        suggestions: [`${params.query.localPart}1`],
      }),
      storageUsage: () => ({ usage: 5 }),
      purgeArchive: (_ctx, params) => ({ messages: params.olderThanDays, freed: 9223372036854775807n }),
    },
  });

  beforeAll(async () => {
    if (kind === "postgres") database = await scratchDatabase("aps_client");
    const tls = await ensureControllerTls(join(dir, "endpoint"), ["127.0.0.1"]);
    endpointCa = tls.ca.cert;
    connector = await startConnector(
      createConnectorApp({ services, credentials: fileCredentialStore(join(dir, "credentials")) }),
      tls.server,
    );
    // One attempt per notification, so a failing handler sends it to the dead-letter list at once.
    controller = await serveProcess(dataDir, database?.url, [
      "--endpoint-timeout",
      "1.5",
      "--event-attempts",
      "1",
      "--event-retry",
      "0",
    ]);
    base = await controller.url;
    dispatcher = nodeDispatcher({ ca: readFileSync(join(dataDir, "tls/ca.crt"), "utf8") });
    admin = createClient({
      baseUrl: base,
      token: readFileSync(join(dataDir, "admin.token"), "utf8").trim(),
      dispatcher,
    });
  }, 60_000);

  afterAll(async () => {
    // Stopped before its data folder is removed: it writes its database files as it closes.
    if (controller && controller.child.exitCode === null && controller.child.signalCode === null) {
      const gone = new Promise((r) => controller.child.once("exit", r));
      controller.child.kill("SIGTERM");
      await gone;
    }
    await connector?.close();
    await dispatcher?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads types, packages, the UI runtime and the OpenAPI document", async () => {
    const implementing = await listTypes(admin, { implementing: MailboxTypeId });
    expect(implementing.items.map((t) => t.id)).toEqual([MailboxTypeId]);
    expect(implementing.range).toEqual({ first: 0, last: 0, total: 1 });
    const composing = (await listTypes(admin, { composing: MailboxTypeId })).items.map((t) => t.id);
    expect(composing).toEqual(
      expect.arrayContaining([
        MailboxTypeId,
        "http://aps-standard.org/types/core/resource/1.0",
        "http://aps-standard.org/types/core/suspendable/1.0",
      ]),
    );
    const mailboxType = await getType(admin, MailboxTypeId);
    expect(mailboxType.name).toBe("Mailbox");
    expect(Object.keys(mailboxType.operations ?? {})).toEqual(
      expect.arrayContaining(["changePassword", "purgeArchive"]),
    );

    const packages = await listPackages(admin);
    const cloudmail = packages.items.find((p) => p.name === "CloudMail")!;
    expect(cloudmail.types).toContain(MailboxTypeId);
    ids.package = cloudmail.id;
    expect((await getPackage(admin, ids.package)).appId).toBe(cloudmail.appId);
    const meta = await getPackageFile(admin, ids.package, "APP-META.xml");
    expect(meta.headers.get("content-type")).toBe("application/xml");
    expect(await meta.text()).toMatch(/<application[\s\S]*<service id="mailboxes"/);

    expect(await uiRuntimeVersion(admin)).toBe("2.0");
    const nav = await postNavigation(admin, { id: "cloudmail", label: "Mail" });
    expect(nav).toMatchObject({ label: "Mail", id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const openapi = await sendJson<{ openapi: string; paths: Record<string, unknown> }>(admin, {
      method: "GET",
      path: "/aps/2/openapi.json",
    });
    expect(openapi.openapi).toBe("3.1.0");
    expect(openapi.paths).toHaveProperty(["/aps/2/resources/{id}"]);
  });

  it("installs an instance and provisions through it, with typed bodies and exact 64-bit integers", async () => {
    const installed = await installInstance(admin, {
      package: ids.package,
      endpoint: connector.url,
      endpointCa,
      settings: { apiEndpoint: "https://api.example", apiKey: "key-0123456789abcdef", apiSecret: "secret-0123456789" },
    });
    ids.instance = installed.id;
    expect(installed.rootService).toBe("cloudmail");
    expect((await listInstances(admin)).items.map((i) => i.id)).toEqual([ids.instance]);
    expect((await getInstance(admin, ids.instance)).endpoint).toBe(connector.url);

    const account = await provisionAccount(admin, {
      aps: { type: ACCOUNT },
      companyName: "Client Co",
      addressPostal: {},
    });
    ids.account = account.aps.id;
    owner = createClient({
      baseUrl: base,
      token: await new TokenService(loadKeys(dataDir).token).mint({ accountId: ids.account }),
      dispatcher,
    });
    const subscription = await provisionSubscription(owner, { name: "mail" });
    const tenant = await provisionTenant(owner, {
      account: { aps: { id: ids.account } },
      subscription: { aps: { id: subscription.aps.id } },
    });
    ids.tenant = tenant.aps.id;
    expect(tenant.organizationId).toBe("org-client");
    expect(tenant.aps.type).toBe(TenantTypeId);
    expect((await getTenant(owner, ids.tenant)).app).toMatchObject({
      aps: { link: "strong", id: installed.rootResource },
    });
    ids.domain = (await provisionDomain(owner, { name: "client.example", tenant: { aps: { id: ids.tenant } } })).aps.id;
    const mailbox = await provisionMailbox(owner, {
      localPart: "ann",
      password: "0123456789",
      quota: 9007199254740993n,
      tenant: { aps: { id: ids.tenant } },
      domain: { aps: { id: ids.domain } },
    });
    ids.mailbox = mailbox.aps.id;
    expect(mailbox).toMatchObject({
      address: "ann@example.com",
      used: 0,
      aps: { status: "aps:ready", type: MailboxTypeId },
    });
    // 2^53 + 1 goes out and comes back exact.
    expect((await getMailbox(owner, ids.mailbox)).quota).toBe(9007199254740993n);
    const changed = await configureMailbox(owner, ids.mailbox, { displayName: "Ann", plan: "business" });
    expect(changed).toMatchObject({ displayName: "Ann", plan: "business", used: 7 });
    expect(calls).toContain("provision ann");
  });

  it("calls custom operations: path and query parameters, JSON and non-JSON bodies both ways, static operations", async () => {
    expect(await tenantUsage(admin, ids.tenant, { period: "2026-11", top: 3 })).toEqual({
      period: "2026-11",
      trafficIn: 3,
    });
    const csv = await tenantExportMailboxes(admin, ids.tenant);
    expect(csv.headers.get("content-type")).toBe("text/csv");
    expect(await csv.text()).toBe("address,quota\na@example.com,5120\n");
    expect(await tenantImportMailboxes(admin, ids.tenant, { file: "address\nb@example.com\nc@example.com\n" })).toEqual(
      { created: 2, skipped: [] },
    );
    expect(await mailboxChangePassword(owner, ids.mailbox, { request: { newPassword: "abcdefghijk" } })).toBe(true);
    expect(await mailboxCheckAvailability(owner, { query: { localPart: "ann", domain: "client.example" } })).toEqual({
      available: false,
      suggestions: ["ann1"],
    });
    // The largest 64-bit integer arrives exact, as a bigint.
    expect(await mailboxPurgeArchive(admin, ids.mailbox, { olderThanDays: 30 })).toEqual({
      messages: 30,
      freed: 9223372036854775807n,
    });
  });

  it("pages through a list with Content-Range, with typed filters and sorts", async () => {
    for (let i = 0; i < 7; i++) {
      await provisionMailbox(owner, {
        localPart: `box-${i}`,
        password: "0123456789",
        tenant: { aps: { id: ids.tenant } },
        domain: { aps: { id: ids.domain } },
      });
    }
    const first = await listMailboxes(owner, { sort: ["localPart"], limit: [0, 3] });
    expect(first.range).toEqual({ first: 0, last: 2, total: 8 });
    expect(first.items.map((m) => m.localPart)).toEqual(["ann", "box-0", "box-1"]);
    const pages: string[][] = [];
    for await (const page of listMailboxPages(owner, { sort: ["-localPart"] }, 3))
      pages.push(page.map((m) => m.localPart));
    expect(pages).toEqual([
      ["box-6", "box-5", "box-4"],
      ["box-3", "box-2", "box-1"],
      ["box-0", "ann"],
    ]);
    const filtered = await listMailboxes(owner, {
      filter: mailboxQuery.or(mailboxQuery.eq("localPart", "box-3"), mailboxQuery.like("localPart", "*-6")),
    });
    expect(filtered.items.map((m) => m.localPart).sort()).toEqual(["box-3", "box-6"]);
    const none = await listMailboxes(owner, { filter: mailboxQuery.eq("localPart", "nobody, (really)") });
    expect(none).toEqual({ items: [], range: { total: 0 } });
  });

  it("links, lists links and unlinks; subscribes to events and unsubscribes", async () => {
    // The mailbox's required `domain` already makes it one of the domain's mailboxes (both ends of
    // one relation, issue 16 item 9): linking it again from the domain's end changes nothing.
    await linkDomainMailboxes(owner, ids.domain, ids.mailbox);
    const members = (await listDomainMailboxes(owner, ids.domain)).map((m) => m.aps.id);
    expect(members).toContain(ids.mailbox);
    const links = await listLinks(owner, ids.mailbox);
    expect(links).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ relation: "tenant", kind: "strong", direction: "out", id: ids.tenant }),
        expect.objectContaining({ relation: "domain", kind: "strong", direction: "out", id: ids.domain }),
      ]),
    );
    expect(links.filter((l) => l.direction === "in")).toEqual([]);
    // Unlinking it from the domain's end would leave it there: refused, naming the relation that keeps it.
    await expect(unlinkDomainMailboxes(owner, ids.domain, ids.mailbox)).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/required relation "domain"/),
    });
    expect((await listDomainMailboxes(owner, ids.domain)).map((m) => m.aps.id).sort()).toEqual(members.sort());

    const subscription = await subscribeTenant(admin, ids.tenant, {
      event: "http://aps-standard.org/core/events/changed",
      source: { type: MailboxTypeId },
      handler: "onMailboxChanged",
    });
    expect(subscription).toMatchObject({
      event: "http://aps-standard.org/core/events/changed",
      source: { type: MailboxTypeId },
      handler: "onMailboxChanged",
    });
    expect((await listTenantEventSubscriptions(admin, ids.tenant)).map((s) => s.id)).toEqual([subscription.id]);
    await unsubscribeTenant(admin, ids.tenant, subscription.id);
    expect(await listTenantEventSubscriptions(admin, ids.tenant)).toEqual([]);
  });

  it("disables and enables, suspends a customer, and shows tasks and the event outbox", async () => {
    expect((await disableMailbox(admin, ids.mailbox)).aps.status).toBe("aps:disabled");
    expect((await enableMailbox(admin, ids.mailbox)).aps.status).toBe("aps:ready");
    const suspended = await suspendCustomer(admin, ids.account, "suspend");
    expect(suspended.changed).toHaveLength(8);
    expect(suspended.failed).toEqual([]);
    expect((await suspendCustomer(admin, ids.account, "resume")).changed).toHaveLength(8);
    expect((await getMailbox(owner, ids.mailbox)).aps.status).toBe("aps:ready");
    expect((await listTasks(admin)).items).toEqual([]);
    expect((await listNotifications(admin, "dead")).items).toEqual([]);
    expect((await listNotifications(admin, "pending")).range.total).toBeGreaterThanOrEqual(0);
  });

  it("serves /aps/2/application to the instance's certificate through the same client", async () => {
    const credentials = (await fileCredentialStore(join(dir, "credentials")).load(ids.instance))!;
    const appDispatcher = nodeDispatcher({ ca: credentials.controllerCa, ...splitCertAndKey(credentials.certAndKey) });
    try {
      const app = createClient({ baseUrl: base, dispatcher: appDispatcher });
      const services = await listApplicationServices(app);
      expect(Object.keys(services).sort()).toEqual(["cloudmail", "domains", "mailboxes", "tenants"]);
      expect(services.mailboxes!.type).toBe(MailboxTypeId);
      // The application reads the encrypted password that token callers never see.
      expect(await getApplicationResource(app, "mailboxes", ids.mailbox)).toMatchObject({ password: "0123456789" });
      expect(await getMailbox(owner, ids.mailbox)).not.toHaveProperty("password");
      expect(await configureApplicationResource(app, "mailboxes", ids.mailbox, { used: 99 })).toMatchObject({
        used: 99,
      });
      // Acting for the owner of one of its resources (APS-Resource-ID).
      const acting = withOptions(app, { resourceId: ids.mailbox });
      const registered = await registerResource<{ aps: { id: string; status: string } }>(acting, "mailboxes", {
        aps: { status: "aps:proto" },
        localPart: "bob",
        password: "0123456789",
        address: "bob@example.com",
      });
      expect(registered.aps.status).toBe("aps:proto");
      expect((await getMailbox(owner, registered.aps.id)).localPart).toBe("bob");
      await unregisterResource(app, "mailboxes", registered.aps.id);
      expect((await apsErrorOf(getMailbox(owner, registered.aps.id))).status).toBe(404);
      // A token caller is not an application.
      expect((await apsErrorOf(listApplicationServices(admin))).status).toBe(401);
    } finally {
      await appDispatcher.close();
    }
  });

  it("rejects with an ApsError that keeps the status, the error class and the details", async () => {
    const bad = await apsErrorOf(
      provisionMailbox(owner, {
        localPart: "Not Valid!",
        password: "short",
        tenant: { aps: { id: ids.tenant } },
        domain: { aps: { id: ids.domain } },
      }),
    );
    expect(bad).toMatchObject({ status: 400, type: "BadRequest" });
    expect(bad.details.map((d) => d.path).sort()).toEqual(["/localPart", "/password"]);
    const anonymous = createClient({ baseUrl: base, token: "not-a-token", dispatcher });
    expect(await apsErrorOf(getMailbox(anonymous, ids.mailbox))).toMatchObject({ status: 401, type: "Unauthorized" });
    expect(await apsErrorOf(disableMailbox(owner, ids.mailbox))).toMatchObject({ status: 403, type: "Forbidden" });
    expect(await apsErrorOf(getMailbox(owner, "00000000-0000-4000-8000-000000000000"))).toMatchObject({
      status: 404,
      type: "NotFound",
    });
    expect(
      await apsErrorOf(send(admin, { method: "DELETE", path: `/aps/2/resources/${ids.mailbox}/changePassword` })),
    ).toMatchObject({ status: 405, type: "MethodNotAllowed" });
    const conflict = await apsErrorOf(enableMailbox(admin, ids.mailbox));
    expect(conflict).toMatchObject({ status: 409, type: "Conflict" });
    expect(conflict.message).toMatch(/ready|disabled/);
    expect(
      await apsErrorOf(configureMailbox(owner, ids.mailbox, { displayName: "x".repeat(1024 * 1024) })),
    ).toMatchObject({ status: 413, type: "PayloadTooLarge" });
    expect(
      await apsErrorOf(
        send(admin, { method: "POST", path: "/aps/2/packages", raw: { contentType: "text/plain", data: "not a zip" } }),
      ),
    ).toMatchObject({ status: 415, type: "UnsupportedMediaType" });
    expect(await apsErrorOf(importPackage(admin, new Uint8Array([1, 2, 3])))).toMatchObject({
      status: 400,
      type: "BadRequest",
    });
    // The application's own error comes back with its status and message.
    const refused = await apsErrorOf(
      provisionDomain(owner, { name: "fail.example", tenant: { aps: { id: ids.tenant } } }),
    );
    expect(refused.status).toBe(500);
    expect(refused.message).toMatch(/DNS provider refused/);
    const settings = {
      apiEndpoint: "https://api.example",
      apiKey: "key-0123456789abcdef",
      apiSecret: "secret-0123456789",
    };
    expect(
      await apsErrorOf(
        installInstance(admin, { package: ids.package, endpoint: "https://127.0.0.1:9", endpointCa, settings }),
      ),
    ).toMatchObject({ status: 502, type: "BadGateway" });
    const slow = await apsErrorOf(
      provisionDomain(owner, { name: "hang.example", tenant: { aps: { id: ids.tenant } } }),
    );
    expect(slow).toMatchObject({ status: 504, type: "GatewayTimeout" });
    expect(slow.message).toMatch(/within 1\.5 s/);
  });

  it("shows a failed asynchronous task with its last error, and removes it", async () => {
    const domain = await provisionDomain(owner, { name: "later.example", tenant: { aps: { id: ids.tenant } } });
    expect(domain.aps.status).toBe("aps:provisioning");
    const failed = await until("a failed task", async () =>
      (await listTasks(admin)).items.find((t) => t.resource === domain.aps.id && t.state === "failed"),
    );
    expect(failed).toMatchObject({ operation: "provision", info: "creating the zone", attempts: 1 });
    expect(failed.lastError).toMatch(/500.*zone could not be created/);
    // The resource stays where the operation left it, visible, not silently dropped.
    expect((await getDomain(owner, domain.aps.id)).aps.status).toBe("aps:provisioning");
    await removeTask(admin, failed.id);
    expect((await listTasks(admin)).items).toEqual([]);
    expect(await apsErrorOf(removeTask(admin, failed.id))).toMatchObject({ status: 404, type: "NotFound" });
    expect(await apsErrorOf(removeTask(admin, "not-a-task"))).toMatchObject({ status: 404, type: "NotFound" });
  });

  it("sends the notifications of a failing handler to the dead-letter list; replay delivers one, discard drops the other", async () => {
    const CHANGED = "http://aps-standard.org/core/events/changed";
    const subscription = await subscribeTenant(admin, ids.tenant, {
      event: CHANGED,
      source: { id: ids.mailbox },
      handler: "onMailboxChanged",
    });
    failEvents = true;
    await configureMailbox(owner, ids.mailbox, { displayName: "Dead one" });
    await configureMailbox(owner, ids.mailbox, { displayName: "Dead two" });
    const dead = await until("two dead notifications", async () => {
      const list = (await listNotifications(admin, "dead")).items.filter((n) => n.subscription === subscription.id);
      return list.length === 2 ? list : undefined;
    });
    expect(dead.map((n) => n.lastError)).toEqual([expect.stringMatching(/500/), expect.stringMatching(/500/)]);
    expect(dead.every((n) => n.source.id === ids.mailbox && n.event === CHANGED)).toBe(true);
    expect(delivered).toEqual([]);

    failEvents = false;
    const [first, second] = [...dead].sort((a, b) => a.serial! - b.serial!) as [OutboxNotification, OutboxNotification];
    expect(await replayNotifications(admin, first.id)).toBe(1);
    await until("the replayed notification", async () => (delivered.length ? true : undefined));
    expect(delivered).toEqual([first.serial]);
    await discardNotification(admin, second.id);
    expect((await listNotifications(admin, "dead")).items).toEqual([]);
    expect(await apsErrorOf(discardNotification(admin, second.id))).toMatchObject({ status: 404 });
    expect(await apsErrorOf(replayNotifications(admin, second.id))).toMatchObject({ status: 404 });
    expect(await replayNotifications(admin)).toBe(0);
    await unsubscribeTenant(admin, ids.tenant, subscription.id);
  });

  it("re-issues credentials, unprovisions, and uninstalls the instance with what is left", async () => {
    expect((await reissueCredentials(admin, ids.instance)).id).toBe(ids.instance);
    const box = (await listMailboxes(owner, { filter: mailboxQuery.eq("localPart", "box-0") })).items[0]!;
    await unprovisionMailbox(owner, box.aps.id);
    expect(calls.at(-1)).toBe("unprovision");
    const removed = await uninstallInstance(admin, ids.instance);
    expect(removed.endpointErrors).toEqual([]);
    // The tenant, its two domains (one left in aps:provisioning), 7 mailboxes left and the application root.
    expect(removed.removed).toBe(11);
    expect((await listInstances(admin)).items).toEqual([]);
    expect((await listMailboxes(owner)).range.total).toBe(0);
  });
});
