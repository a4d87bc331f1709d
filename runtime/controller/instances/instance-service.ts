/**
 * Application instances (DESIGN 3, aps-facts 6): an imported package installed at an endpoint.
 * Installing issues the instance certificate from the controller's CA and provisions the
 * package's application root resource at the endpoint, handing over `aps.x509.self` (the
 * certificate and key) and `aps.x509.controller` (the CA certificate). Nothing is stored when
 * the endpoint does not accept it.
 */
import { randomUUID, X509Certificate } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import { applicationActor } from "../../common/actor.ts";
import { requireProviderAdmin, type Caller } from "../auth/caller.ts";
import { ControllerError, invalidBody } from "../support/errors.ts";
import type { EndpointTarget } from "../forward/endpoint-client.ts";
import type { PropertySealer } from "../support/encryption.ts";
import type { Forwarder } from "../forward/forwarder.ts";
import type { PackageCatalog } from "../packages/catalog.ts";
import type { RegistryType } from "../registry.ts";
import type { Db } from "../store/open-database.ts";
import { instances, links, resources } from "../store/schema.ts";
import { ResourceRows } from "../store/resource-rows.ts";
import { CoreEvent } from "../events/core-events.ts";
import { recordEvents } from "../events/outbox.ts";
import { raise } from "../events/raise.ts";
import type { TransactionTickets } from "../forward/transaction-tickets.ts";
import { dropStaged, moveStaged } from "../events/staged-subscriptions.ts";
import { issueInstanceCredentials, type KeyPairPem } from "../../common/certificate-authority.ts";
import { isUuid } from "../support/uuid.ts";
import { CoreTypeIds, ResourceStatus } from "../../common/core-types.ts";
import type { InstallRequest, InstanceInfo, UninstallReport } from "../../common/instance-info.ts";
import type { ApsX509 } from "../../common/types.ts";

const APPLICATION_TYPE = CoreTypeIds.application;

/** An instance row. */
export type InstanceRow = typeof instances.$inferSelect;

/** The instance that serves a type, as forwarding needs it. */
export interface ServingInstance {
  readonly target: EndpointTarget;
  readonly packageId: string;
  readonly rootResource?: { readonly id: string; readonly typeId: string };
}

/** How long the serving instance of a package is remembered (another process may install or remove one). */
const SERVING_TTL_MS = 5000;

export class InstanceService {
  private readonly serving = new Map<string, { value: ServingInstance; until: number }>();
  /** The root resource's row, as every other writer builds one (store/resource-rows.ts). */
  private readonly rows: ResourceRows;

  constructor(
    private readonly db: Db,
    private readonly catalog: PackageCatalog,
    private readonly forwarder: Forwarder,
    private readonly ca: KeyPairPem,
    private readonly sealer: PropertySealer,
    private readonly providerAccount: { id: string; path: string },
    private readonly tickets: TransactionTickets,
    /**
     * What the endpoint gets as `aps.x509.controller`: the client certificate the controller
     * presents when it calls endpoints, then the CA certificate. aps-node-runtime compares the
     * peer certificate byte for byte with the first certificate there (instance.js:334-350,
     * platform-forms Q3), so it must be the one presented, not the CA. Defaults to the CA alone.
     */
    private readonly controllerIdentity: string = ca.cert,
  ) {
    this.rows = new ResourceRows(sealer);
  }

  async install(caller: Caller, request: unknown): Promise<InstanceInfo> {
    requireProviderAdmin(caller, "manage application instances");
    const input = parseInstall(request);
    const oauth = input.auth?.oauth;
    await this.catalog.refresh();
    const pkg = this.catalog.get(input.package);
    if (!pkg) throw new ControllerError(400, `Package ${input.package} is not known; import it first (POST /aps/2/packages) or list them at /aps/2/packages.`);
    const root = pkg.typeIds.map((id) => this.catalog.registry.get(id)!).find((t) => t && (t.id === APPLICATION_TYPE || t.ancestors.includes(APPLICATION_TYPE)));
    if (!root?.service) throw new ControllerError(400, `Package ${pkg.name} declares no application root type (a type implementing core/application with an APP-META.xml service).`);
    const validator = this.catalog.validators.get(root.id);
    const settings = { aps: { type: root.id }, ...(input.settings ?? {}) };
    const errors = validator?.validateCreate(settings, applicationActor) ?? [];
    if (errors.length) throw invalidBody(errors, "The settings of the application root resource");

    const instanceId = randomUUID();
    const credentials = await issueInstanceCredentials(this.ca, instanceId);
    const fingerprint = new X509Certificate(credentials.cert).fingerprint256;
    if (oauth && (await this.db.select({ id: instances.id }).from(instances).where(eq(instances.oauthKey, oauth.key)).limit(1)).length) {
      throw new ControllerError(409, `The OAuth key ${JSON.stringify(oauth.key)} is already another instance's; each instance needs a key of its own.`);
    }
    const target: EndpointTarget = { instanceId, endpoint: input.endpoint, endpointCa: input.endpointCa ?? null, ...(oauth ? { oauth } : {}) };
    const rootId = randomUUID();
    // The settings as sent: `default` is a hint for clients preparing them (SPEC 2.2), not filled in.
    const values: Record<string, unknown> = { ...(input.settings ?? {}) };
    // The application may subscribe to events while it installs (SPEC 6.1): with this transaction id and its new certificate.
    const pendingOAuth = oauth ? { oauth: { key: oauth.key, sealedSecret: Buffer.from(this.sealer.sealText(instanceId, oauth.secret)).toString("base64url") } } : {};
    const transactionId = this.tickets.issue({ resourceId: rootId, typeId: root.id, instanceId, fingerprint, ...pendingOAuth });
    let outcome;
    try {
      outcome = await this.forwarder.provision(target, root, { aps: { type: root.id, id: rootId, x509: this.x509Of(credentials) }, ...values }, { transactionId, ...(caller.request ? { request: caller.request } : {}) });
      if (outcome.kind === "accepted") throw new ControllerError(502, `The endpoint ${input.endpoint} answered the installation with 202; an instance must be installed at once.`);
      // As for provisioning: what the endpoint returns must be valid for the root type. An error
      // answered with 200 (aps-node-runtime's `{code, type, message}`, endpoint.js:506-513) fails here.
      const { aps: _aps, ...returnedProps } = outcome.properties;
      for (const name of Object.keys(root.relations)) delete returnedProps[name];
      const invalid = validator?.validateUpdate(returnedProps, { application: true, roles: 0 }) ?? [];
      if (invalid.length) throw new ControllerError(502, `The endpoint ${input.endpoint} answered the installation with properties that are not valid for ${root.name}: ${invalid.map((e) => `${e.path}: ${e.message}`).join("; ")}.`);
    } catch (error) {
      await dropStaged(this.db, rootId).catch(() => undefined);
      throw error;
    }
    const { aps: _ignored, ...returned } = outcome.properties;
    const now = new Date().toISOString();
    // Instance, root resource and its subscriptions together, or none of them.
    const rootRow = this.rows.newRow({ id: rootId, typeId: root.id, status: ResourceStatus.ready, ownerAccount: this.providerAccount.id, ownerPath: this.providerAccount.path, packageId: pkg.id, instanceId }, root.properties, { ...values, ...returned }, now);
    await this.db.transaction(async (tx) => {
      await tx.insert(instances).values({ id: instanceId, packageId: pkg.id, endpoint: input.endpoint, endpointCa: input.endpointCa ?? null, rootService: root.service!, rootResource: rootId, certFingerprint: fingerprint, status: "ready", created: now, ...(oauth ? { oauthKey: oauth.key, oauthSecret: this.sealer.sealText(instanceId, oauth.secret) } : {}) });
      await tx.insert(resources).values(rootRow);
      await recordEvents(tx as unknown as Db, [raise(this.catalog.registry, CoreEvent.available, rootRow)]);
      await moveStaged(tx as unknown as Db, rootId);
    });
    this.serving.clear();
    return this.view((await this.get(instanceId))!);
  }

  async list(caller: Caller): Promise<InstanceInfo[]> {
    requireProviderAdmin(caller, "manage application instances");
    return (await this.db.select().from(instances).orderBy(asc(instances.created))).map((r) => this.view(r));
  }

  async describe(caller: Caller, id: string): Promise<InstanceInfo> {
    requireProviderAdmin(caller, "manage application instances");
    const row = await this.get(id);
    if (!row) throw new ControllerError(404, `Instance ${id} does not exist.`);
    return this.view(row);
  }

  /**
   * Uninstalls an instance: its resources are unprovisioned at the endpoint, dependents before
   * what they hold strong links to, then the application root, then the instance. With `force`,
   * an endpoint that fails or is gone does not stop the removal (a dead endpoint can go).
   */
  async uninstall(caller: Caller, id: string, force: boolean): Promise<UninstallReport> {
    requireProviderAdmin(caller, "manage application instances");
    const instance = await this.get(id);
    if (!instance) throw new ControllerError(404, `Instance ${id} does not exist.`);
    const target = this.targetOfRow(instance);
    const rows = await this.db.select({ id: resources.id, typeId: resources.typeId }).from(resources).where(eq(resources.instanceId, id));
    const strong = await this.db
      .select({ source: links.sourceId, target: links.targetId, relation: links.relation, sourceType: resources.typeId })
      .from(links)
      .innerJoin(resources, eq(resources.id, links.sourceId))
      .where(eq(resources.instanceId, id));
    const holds = strong.filter((l) => this.catalog.registry.get(l.sourceType)?.relations[l.relation]?.required);
    const remaining = new Map(rows.map((r) => [r.id, r]));
    const endpointErrors: string[] = [];
    let removed = 0;
    while (remaining.size) {
      // Those no remaining resource holds a strong link to; the root last of all.
      const held = new Set(holds.filter((l) => remaining.has(l.source)).map((l) => l.target));
      let batch = [...remaining.values()].filter((r) => !held.has(r.id) && (r.id !== instance.rootResource || remaining.size === 1));
      if (batch.length === 0) batch = [...remaining.values()]; // a cycle of strong links: take them all
      for (const r of batch) {
        const type = this.catalog.registry.get(r.typeId);
        try {
          if (type?.service) {
            const outcome = await this.forwarder.unprovision(target, type, r.id, caller.request ? { request: caller.request } : {});
            if (outcome.kind === "accepted") throw new ControllerError(502, `the endpoint answered 202 for ${r.id}; uninstall needs it done at once`);
          }
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          if (!force) throw new ControllerError(502, `Uninstall stopped at ${type?.name ?? r.typeId} ${r.id}: ${message}. ${removed} resource(s) were removed; repeat with ?force=true to remove the rest without the endpoint.`);
          endpointErrors.push(`${r.id}: ${message}`);
        }
        const [row] = await this.db.select().from(resources).where(eq(resources.id, r.id));
        if (row) {
          await this.db.transaction(async (tx) => {
            await recordEvents(tx as unknown as Db, [raise(this.catalog.registry, CoreEvent.removed, row)]);
            await tx.delete(resources).where(eq(resources.id, r.id));
          });
        }
        remaining.delete(r.id);
        removed++;
      }
    }
    await this.db.delete(instances).where(eq(instances.id, id));
    this.serving.clear();
    return { removed, endpointErrors };
  }

  /**
   * New credentials for an instance (a lost certificate is not the end of it): a new
   * certificate from the CA, handed to the endpoint by configuring the application root with
   * `aps.x509`; the old certificate stops working at once.
   */
  async reissue(caller: Caller, id: string): Promise<InstanceInfo> {
    requireProviderAdmin(caller, "manage application instances");
    const instance = await this.get(id);
    if (!instance?.rootResource) throw new ControllerError(404, `Instance ${id} does not exist.`);
    const root = await this.db.select({ typeId: resources.typeId }).from(resources).where(eq(resources.id, instance.rootResource));
    const type = root[0] && this.catalog.registry.get(root[0].typeId);
    if (!type) throw new ControllerError(409, `The application root of instance ${id} is gone; uninstall it with ?force=true.`);
    const credentials = await issueInstanceCredentials(this.ca, id);
    const target = this.targetOfRow(instance);
    const outcome = await this.forwarder.configure(target, type, instance.rootResource, { aps: { x509: this.x509Of(credentials) } }, caller.request ? { request: caller.request } : {});
    if (outcome.kind === "accepted") throw new ControllerError(502, "The endpoint answered 202; new credentials must be taken at once.");
    await this.db.update(instances).set({ certFingerprint: new X509Certificate(credentials.cert).fingerprint256 }).where(eq(instances.id, id));
    this.serving.clear();
    return this.view((await this.get(id))!);
  }

  /**
   * The instance that serves a type: the first installed instance of its package. Remembered for
   * a few seconds, as every provisioning asks; this process forgets it at once on changes.
   */
  async targetFor(type: RegistryType): Promise<ServingInstance> {
    const pkg = this.catalog.list().find((p) => p.typeIds.includes(type.id));
    if (!pkg) throw new ControllerError(502, `No package declares ${type.id}.`);
    const known = this.serving.get(pkg.id);
    if (known && known.until > Date.now()) return known.value;
    const [row] = await this.db.select().from(instances).where(eq(instances.packageId, pkg.id)).orderBy(asc(instances.created)).limit(1);
    if (!row) throw new ControllerError(502, `No instance of ${pkg.name} is installed, so nothing can serve ${type.name}; install one with POST /aps/2/instances.`);
    const [root] = row.rootResource ? await this.db.select({ id: resources.id, typeId: resources.typeId }).from(resources).where(eq(resources.id, row.rootResource)) : [];
    const value: ServingInstance = { target: this.targetOfRow(row), packageId: pkg.id, ...(root ? { rootResource: root } : {}) };
    this.serving.set(pkg.id, { value, until: Date.now() + SERVING_TTL_MS });
    return value;
  }

  /** An instance's endpoint by id. */
  async targetOf(instanceId: string): Promise<EndpointTarget | undefined> {
    const row = await this.get(instanceId);
    return row ? this.targetOfRow(row) : undefined;
  }

  /**
   * The instance whose OAuth consumer key this is, with its secret opened (auth/oauth-verifier.ts).
   * While an instance installs it is not stored yet; its calls made with the install's
   * transaction id are recognised by the key and sealed secret that id carries.
   */
  async byOAuthKey(key: string, transactionId?: string): Promise<{ instanceId: string; secret: string } | undefined> {
    const [row] = await this.db.select().from(instances).where(eq(instances.oauthKey, key)).limit(1);
    if (row?.oauthSecret) return { instanceId: row.id, secret: this.sealer.openText(row.id, row.oauthSecret) };
    const claims = this.tickets.read(transactionId);
    if (claims?.oauth?.key !== key) return undefined;
    return { instanceId: claims.instanceId, secret: this.sealer.openText(claims.instanceId, Buffer.from(claims.oauth.sealedSecret, "base64url")) };
  }

  /** How to reach an instance: its endpoint, the CA of its HTTPS certificate, and its OAuth credentials when it has them. */
  private targetOfRow(row: InstanceRow): EndpointTarget {
    const oauth = row.oauthKey && row.oauthSecret ? { oauth: { key: row.oauthKey, secret: this.sealer.openText(row.id, row.oauthSecret) } } : {};
    return { instanceId: row.id, endpoint: row.endpoint, endpointCa: row.endpointCa, ...oauth };
  }

  /** An instance by id (an OAuth-signed caller, auth/oauth-verifier.ts). */
  byId(id: string): Promise<InstanceRow | undefined> {
    return this.get(id);
  }

  /** The instance whose certificate has this SHA-256 fingerprint (`AB:CD:...`). */
  async byFingerprint(fingerprint: string): Promise<InstanceRow | undefined> {
    const [row] = await this.db.select().from(instances).where(eq(instances.certFingerprint, fingerprint)).limit(1);
    return row;
  }

  /** What the endpoint gets as `aps.x509`: the instance's certificate and key, and the controller's identity. */
  private x509Of(credentials: { readonly self: string }): ApsX509 {
    return { self: credentials.self, controller: this.controllerIdentity };
  }

  private async get(id: string): Promise<InstanceRow | undefined> {
    if (!isUuid(id)) return undefined;
    const [row] = await this.db.select().from(instances).where(eq(instances.id, id)).limit(1);
    return row;
  }

  private view(r: InstanceRow): InstanceInfo {
    // The OAuth key is shown, its secret never.
    return { id: r.id, package: r.packageId, endpoint: r.endpoint, rootService: r.rootService, rootResource: r.rootResource, status: r.status, created: r.created, ...(r.oauthKey ? { auth: { oauth: { key: r.oauthKey } } } : {}), href: `/aps/2/instances/${r.id}` };
  }
}


function parseInstall(body: unknown): InstallRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new ControllerError(400, 'Send {"package": "<package id>", "endpoint": "https://..."} to install an instance.');
  const b = body as Record<string, unknown>;
  if (typeof b.package !== "string") throw new ControllerError(400, '"package" must name an imported package by id.');
  const oauth = parseOAuth(b.auth);
  if (typeof b.endpoint !== "string" || !(/^https:\/\/[^\s/]+/.test(b.endpoint) || (oauth && isLoopbackHttp(b.endpoint)))) throw new ControllerError(400, `"endpoint" must be the https:// URL of the application endpoint${oauth ? " (plain http:// only on this machine: 127.0.0.1, ::1 or localhost)" : ""}.`);
  if (b.endpointCa !== undefined && (typeof b.endpointCa !== "string" || !b.endpointCa.includes("BEGIN CERTIFICATE"))) throw new ControllerError(400, '"endpointCa" must be a PEM certificate.');
  if (b.settings !== undefined && (typeof b.settings !== "object" || b.settings === null || Array.isArray(b.settings))) throw new ControllerError(400, '"settings" must be an object of the root resource\'s properties.');
  return { package: b.package, endpoint: b.endpoint.replace(/\/$/, ""), ...(typeof b.endpointCa === "string" ? { endpointCa: b.endpointCa } : {}), ...(b.settings ? { settings: b.settings as Record<string, unknown> } : {}), ...(oauth ? { auth: { oauth } } : {}) };
}

/** `auth: {oauth: {key, secret}}`, as apsconnect-cli sends it under `aps.auth` (platform-forms §1.1). */
function parseOAuth(auth: unknown): NonNullable<InstallRequest["auth"]>["oauth"] | undefined {
  if (auth === undefined || auth === null) return undefined;
  const oauth = typeof auth === "object" && !Array.isArray(auth) ? (auth as Record<string, unknown>).oauth : undefined;
  const { key, secret } = (typeof oauth === "object" && oauth !== null ? oauth : {}) as Record<string, unknown>;
  const printable = (v: unknown, max: number): v is string => typeof v === "string" && v.length > 0 && v.length <= max && !/[\u0000-\u001f\u007f]/.test(v);
  if (!printable(key, 200) || !printable(secret, 1000)) throw new ControllerError(400, '"auth" must be {"oauth": {"key": "<consumer key, 1-200 characters>", "secret": "<consumer secret, 1-1000 characters>"}}.');
  return { key, secret };
}

/**
 * An http:// URL of this machine. The platform talks to endpoints over HTTPS (aps-facts 6); OAuth
 * authenticates the calls without TLS, but the bodies (the install's private key, encrypted
 * properties) would cross the network readable, so plain http is for an endpoint on the same host
 * only (a connector such as FallBall's Flask app run locally).
 */
function isLoopbackHttp(endpoint: string): boolean {
  if (!/^http:\/\//i.test(endpoint)) return false;
  try {
    const host = new URL(endpoint).hostname;
    return host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}
