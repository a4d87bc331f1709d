/**
 * Application instances (docs/aps/lifecycle.md, "Application instances"): an imported package
 * installed at an endpoint. Installing issues the instance certificate from the controller's CA and
 * provisions the package's application root resource at the endpoint, handing over `aps.x509.self`
 * (the certificate and key) and `aps.x509.controller` (the CA certificate). Nothing is stored when
 * the endpoint does not accept it. Which instance serves what is instance-lookup.ts.
 */
import { randomUUID, X509Certificate } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import { applicationActor } from "../../common/actor.ts";
import { CoreTypeIds, ResourceStatus } from "../../common/core-types.ts";
import type { EndpointHealth, InstanceInfo, UninstallReport } from "../../common/instance-info.ts";
import type { TypeValidator } from "../../common/type-validator.ts";
import type { ApsX509 } from "../../common/types.ts";
import { requireProviderAdmin, type Caller } from "../auth/caller.ts";
import { CoreEvent } from "../events/core-events.ts";
import { recordEvents } from "../events/outbox.ts";
import { raise } from "../events/raise.ts";
import { dropStaged, moveStaged } from "../events/staged-subscriptions.ts";
import type { EndpointTarget } from "../forward/endpoint-client.ts";
import type { ForwardOrigin, Forwarder, ProvisionBody } from "../forward/forwarder.ts";
import type { TransactionStore } from "../forward/transaction-store.ts";
import type { PackageCatalog, PackageRecord } from "../packages/catalog.ts";
import type { RegistryType } from "../registry.ts";
import { forwardOrigin } from "../resources/applications.ts";
import type { Db } from "../store/open-database.ts";
import { ResourceRows } from "../store/resource-rows.ts";
import { instances, links, resources } from "../store/schema.ts";
import type { PropertySealer } from "../support/encryption.ts";
import { ControllerError, invalidBody } from "../support/errors.ts";
import { issueInstanceCredentials, type KeyPairPem } from "../../common/certificate-authority.ts";
import type { InstanceLookup, InstanceRow } from "./instance-lookup.ts";
import { parseInstall } from "./install-request.ts";
import { InstanceUpgrade } from "./instance-upgrade.ts";
import { parsePlatformUpgrade, parseUpgrade } from "./upgrade-request.ts";
import { uninstallOrder } from "./uninstall-order.ts";

const APPLICATION_TYPE = CoreTypeIds.application;

/** The application root type of a package, and the validator of its settings. */
interface InstallRoot {
  readonly pkg: PackageRecord;
  readonly type: RegistryType;
  readonly validator: TypeValidator | undefined;
}

export class InstanceLifecycle {
  /** The root resource's row, as every other writer builds one (store/resource-rows.ts). */
  private readonly rows: ResourceRows;
  private readonly upgrades: InstanceUpgrade;

  constructor(
    private readonly db: Db,
    private readonly catalog: PackageCatalog,
    private readonly lookup: InstanceLookup,
    private readonly forwarder: Forwarder,
    private readonly ca: KeyPairPem,
    private readonly sealer: PropertySealer,
    private readonly providerAccount: { id: string; path: string },
    private readonly transactions: TransactionStore,
    /**
     * What the endpoint gets as `aps.x509.controller`: the client certificate the controller
     * presents when it calls endpoints, then the CA certificate. aps-node-runtime compares the
     * peer certificate byte for byte with the first certificate there (instance.js:334-350,
     * platform-forms Q3), so it must be the one presented, not the CA. Defaults to the CA alone.
     */
    private readonly controllerIdentity: string = ca.cert,
  ) {
    this.rows = new ResourceRows(sealer);
    this.upgrades = new InstanceUpgrade(db, catalog, lookup, forwarder, this.rows);
  }

  async install(caller: Caller, request: unknown): Promise<InstanceInfo> {
    requireProviderAdmin(caller, "manage application instances");
    const input = parseInstall(request);
    const oauth = input.auth?.oauth;
    const root = await this.installRoot(input.package, input.settings);
    const instanceId = randomUUID();
    const credentials = await issueInstanceCredentials(this.ca, instanceId);
    const certificate = new X509Certificate(credentials.cert);
    const fingerprint = certificate.fingerprint256;
    if (
      oauth &&
      (await this.db.select({ id: instances.id }).from(instances).where(eq(instances.oauthKey, oauth.key)).limit(1))
        .length
    ) {
      throw new ControllerError(
        409,
        `The OAuth key ${JSON.stringify(oauth.key)} is already another instance's; each instance needs a key of its own.`,
      );
    }
    const target: EndpointTarget = {
      instanceId,
      endpoint: input.endpoint,
      endpointCa: input.endpointCa ?? null,
      ...(oauth ? { oauth } : {}),
    };
    const rootId = randomUUID();
    // The settings as sent: `default` is a hint for clients preparing them (docs/aps/resources.md,
    // "Property attributes"), not filled in.
    const values: Record<string, unknown> = { ...(input.settings ?? {}) };
    // The application may subscribe to events while it installs (docs/aps/events.md,
    // "Subscribing"): with this transaction id and its new certificate.
    const pendingOAuth = oauth
      ? { oauth: { key: oauth.key, sealedSecret: this.sealer.sealText(instanceId, oauth.secret) } }
      : {};
    const transactionId = await this.transactions.issue({
      resourceId: rootId,
      typeId: root.type.id,
      instanceId,
      fingerprint,
      ...pendingOAuth,
    });
    const returned = await this.provisionRoot(
      target,
      root,
      rootId,
      { aps: { type: root.type.id, id: rootId, x509: this.x509Of(credentials) }, ...values },
      { ...forwardOrigin(caller), transactionId },
    );
    const now = new Date().toISOString();
    // Instance, root resource and its subscriptions together, or none of them.
    const rootRow = this.rows.newRow(
      {
        id: rootId,
        typeId: root.type.id,
        status: ResourceStatus.ready,
        ownerAccount: this.providerAccount.id,
        ownerPath: this.providerAccount.path,
        packageId: root.pkg.id,
        instanceId,
      },
      root.type.properties,
      { ...values, ...returned },
      now,
    );
    await this.db.transaction(async (tx) => {
      await tx.insert(instances).values({
        id: instanceId,
        packageId: root.pkg.id,
        endpoint: input.endpoint,
        endpointCa: input.endpointCa ?? null,
        rootService: root.type.service!,
        rootResource: rootId,
        ...certificateColumns(certificate),
        status: "ready",
        created: now,
        ...(oauth ? { oauthKey: oauth.key, oauthSecret: this.sealer.sealText(instanceId, oauth.secret) } : {}),
      });
      await tx.insert(resources).values(rootRow);
      await recordEvents(tx as unknown as Db, [raise(this.catalog.registry, CoreEvent.available, rootRow)]);
      await moveStaged(tx as unknown as Db, rootId);
    });
    this.lookup.forget();
    return instanceView((await this.lookup.byId(instanceId))!);
  }

  async list(caller: Caller): Promise<InstanceInfo[]> {
    requireProviderAdmin(caller, "manage application instances");
    return (await this.db.select().from(instances).orderBy(asc(instances.created))).map(instanceView);
  }

  async describe(caller: Caller, id: string): Promise<InstanceInfo> {
    requireProviderAdmin(caller, "manage application instances");
    const row = await this.lookup.byId(id);
    if (!row) throw new ControllerError(404, `Instance ${id} does not exist.`);
    return instanceView(row);
  }

  /**
   * Whether the instance's endpoint answers now : a `GET` of its
   * root over the instance's HTTPS settings, timed. A refused connection, a TLS failure or a
   * time-out is an unreachable endpoint, not an error of this request.
   */
  async health(caller: Caller, id: string): Promise<EndpointHealth> {
    requireProviderAdmin(caller, "manage application instances");
    const instance = await this.lookup.byId(id);
    if (!instance) throw new ControllerError(404, `Instance ${id} does not exist.`);
    const checked = new Date().toISOString();
    const started = performance.now();
    const ms = () => Math.round((performance.now() - started) * 10) / 10;
    try {
      const reply = await this.forwarder.probe(this.lookup.targetOfRow(instance));
      return { endpoint: instance.endpoint, reachable: true, status: reply.status, ms: ms(), checked };
    } catch (error) {
      if (!(error instanceof ControllerError)) throw error;
      return { endpoint: instance.endpoint, reachable: false, error: error.message, ms: ms(), checked };
    }
  }

  /**
   * Uninstalls an instance: its resources are unprovisioned at the endpoint, dependents before
   * what they hold strong links to, then the application root, then the instance. With `force`,
   * an endpoint that fails or is gone does not stop the removal (a dead endpoint can go).
   */
  async uninstall(caller: Caller, id: string, force: boolean): Promise<UninstallReport> {
    requireProviderAdmin(caller, "manage application instances");
    const instance = await this.lookup.byId(id);
    if (!instance) throw new ControllerError(404, `Instance ${id} does not exist.`);
    const target = this.lookup.targetOfRow(instance);
    const endpointErrors: string[] = [];
    let removed = 0;
    for (const r of await this.removalOrder(instance)) {
      const type = this.catalog.registry.get(r.typeId);
      try {
        if (type?.service) {
          const outcome = await this.forwarder.unprovision(target, type, r.id, forwardOrigin(caller));
          if (outcome.kind === "accepted")
            throw new ControllerError(502, `the endpoint answered 202 for ${r.id}; uninstall needs it done at once`);
        }
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (!force)
          throw new ControllerError(
            502,
            `Uninstall stopped at ${type?.name ?? r.typeId} ${r.id}: ${message}. ${removed} resource(s) were removed; repeat with ?force=true to remove the rest without the endpoint.`,
          );
        endpointErrors.push(`${r.id}: ${message}`);
      }
      await this.removeRow(r.id);
      removed++;
    }
    await this.db.delete(instances).where(eq(instances.id, id));
    this.lookup.forget();
    return { removed, endpointErrors };
  }

  /**
   * New credentials for an instance (a lost certificate is not the end of it): a new
   * certificate from the CA, handed to the endpoint by configuring the application root with
   * `aps.x509`; the old certificate stops working at once.
   */
  async reissue(caller: Caller, id: string): Promise<InstanceInfo> {
    requireProviderAdmin(caller, "manage application instances");
    const instance = await this.lookup.byId(id);
    if (!instance?.rootResource) throw new ControllerError(404, `Instance ${id} does not exist.`);
    const root = await this.db
      .select({ typeId: resources.typeId })
      .from(resources)
      .where(eq(resources.id, instance.rootResource));
    const type = root[0] && this.catalog.registry.get(root[0].typeId);
    if (!type)
      throw new ControllerError(409, `The application root of instance ${id} is gone; uninstall it with ?force=true.`);
    const credentials = await issueInstanceCredentials(this.ca, id);
    const target = this.lookup.targetOfRow(instance);
    const outcome = await this.forwarder.configure(
      target,
      type,
      instance.rootResource,
      { aps: { x509: this.x509Of(credentials) } },
      forwardOrigin(caller),
    );
    if (outcome.kind === "accepted")
      throw new ControllerError(502, "The endpoint answered 202; new credentials must be taken at once.");
    await this.db
      .update(instances)
      .set(certificateColumns(new X509Certificate(credentials.cert)))
      .where(eq(instances.id, id));
    this.lookup.forget();
    return instanceView((await this.lookup.byId(id))!);
  }

  /**
   * Upgrades an instance to a newer package of its application (instance-upgrade.ts). `form` is
   * the body's: aps-gen's `/aps/2/instances` or the platform's `/aps/2/applications` (upgrade-request.ts).
   */
  async upgrade(
    caller: Caller,
    id: string,
    body: unknown,
    form: "instances" | "applications" = "instances",
  ): Promise<InstanceInfo> {
    const appId = await this.upgrades.applicationOf(caller, id);
    const request =
      form === "instances"
        ? await parseUpgrade(body, appId, this.catalog)
        : await parsePlatformUpgrade(body, appId, this.catalog);
    await this.upgrades.upgrade(caller, id, request);
    return instanceView((await this.lookup.byId(id))!);
  }

  /** The package to install, its application root type, and the settings checked as the application would write them. */
  private async installRoot(packageId: string, settings: Record<string, unknown> | undefined): Promise<InstallRoot> {
    await this.catalog.refresh();
    const pkg = this.catalog.get(packageId);
    if (!pkg)
      throw new ControllerError(
        400,
        `Package ${packageId} is not known; import it first (POST /aps/2/packages) or list them at /aps/2/packages.`,
      );
    const type = pkg.typeIds
      .map((id) => this.catalog.registry.get(id)!)
      .find((t) => t && (t.id === APPLICATION_TYPE || t.ancestors.includes(APPLICATION_TYPE)));
    if (!type?.service)
      throw new ControllerError(
        400,
        `Package ${pkg.name} declares no application root type (a type implementing core/application with an APP-META.xml service).`,
      );
    const validator = this.catalog.validators.get(type.id);
    const errors = validator?.validateCreate({ aps: { type: type.id }, ...(settings ?? {}) }, applicationActor) ?? [];
    if (errors.length) throw invalidBody(errors, "The settings of the application root resource");
    return { pkg, type, validator };
  }

  /**
   * Provisions the application root at the endpoint, which must do it at once; what it answers
   * (without `aps`) must be valid for the root type. Subscriptions the application made while
   * installing are dropped when it fails.
   */
  private async provisionRoot(
    target: EndpointTarget,
    root: InstallRoot,
    rootId: string,
    body: ProvisionBody,
    origin: ForwardOrigin,
  ): Promise<Record<string, unknown>> {
    try {
      const outcome = await this.forwarder.provision(target, root.type, body, origin);
      if (outcome.kind === "accepted")
        throw new ControllerError(
          502,
          `The endpoint ${target.endpoint} answered the installation with 202; an instance must be installed at once.`,
        );
      // As for provisioning: what the endpoint returns must be valid for the root type. An error
      // answered with 200 (aps-node-runtime's `{code, type, message}`, endpoint.js:506-513) fails here.
      const { aps: _aps, ...returned } = outcome.properties;
      const props = { ...returned };
      for (const name of Object.keys(root.type.relations)) delete props[name];
      const invalid = root.validator?.validateUpdate(props, { application: true, roles: 0 }) ?? [];
      if (invalid.length)
        throw new ControllerError(
          502,
          `The endpoint ${target.endpoint} answered the installation with properties that are not valid for ${root.type.name}: ${invalid.map((e) => `${e.path}: ${e.message}`).join("; ")}.`,
        );
      return returned;
    } catch (error) {
      await dropStaged(this.db, rootId).catch(() => undefined);
      throw error;
    }
  }

  /** The instance's resources in the order uninstall-order.ts gives them. */
  private async removalOrder(instance: InstanceRow): Promise<{ id: string; typeId: string }[]> {
    const rows = await this.db
      .select({ id: resources.id, typeId: resources.typeId })
      .from(resources)
      .where(eq(resources.instanceId, instance.id));
    const strong = await this.db
      .select({
        source: links.sourceId,
        target: links.targetId,
        relation: links.relation,
        sourceType: resources.typeId,
      })
      .from(links)
      .innerJoin(resources, eq(resources.id, links.sourceId))
      .where(eq(resources.instanceId, instance.id));
    const holds = strong.filter((l) => this.catalog.registry.get(l.sourceType)?.relations[l.relation]?.required);
    return uninstallOrder(rows, holds, instance.rootResource);
  }

  /** Deletes a resource the endpoint let go of, raising `removed` for it. */
  private async removeRow(id: string): Promise<void> {
    const [row] = await this.db.select().from(resources).where(eq(resources.id, id));
    if (!row) return;
    await this.db.transaction(async (tx) => {
      await recordEvents(tx as unknown as Db, [raise(this.catalog.registry, CoreEvent.removed, row)]);
      await tx.delete(resources).where(eq(resources.id, id));
    });
  }

  /** What the endpoint gets as `aps.x509`: the instance's certificate and key, and the controller's identity. */
  private x509Of(credentials: { readonly self: string }): ApsX509 {
    return { self: credentials.self, controller: this.controllerIdentity };
  }
}

/** The columns that name an instance's certificate: its fingerprint, and when it expires. */
function certificateColumns(certificate: X509Certificate): { certFingerprint: string; certNotAfter: string } {
  return { certFingerprint: certificate.fingerprint256, certNotAfter: new Date(certificate.validTo).toISOString() };
}

/** An instance as the administration API shows it: the OAuth key is shown, its secret never. */
function instanceView(r: InstanceRow): InstanceInfo {
  return {
    id: r.id,
    package: r.packageId,
    endpoint: r.endpoint,
    rootService: r.rootService,
    rootResource: r.rootResource,
    status: r.status,
    // ISO 8601 as every other time the API answers (the column reads back in PostgreSQL's own text form).
    created: new Date(r.created).toISOString(),
    ...(r.oauthKey ? { auth: { oauth: { key: r.oauthKey } } } : {}),
    ...(r.certNotAfter ? { certificate: { notAfter: new Date(r.certNotAfter).toISOString() } } : {}),
    href: `/aps/2/instances/${r.id}`,
  };
}
