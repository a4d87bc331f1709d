/**
 * Upgrading an application instance to a newer package of its application (issue 27 item 7),
 * as the platform does it (https://docs.cloudblue.com/cbc/sdk/21.0/api/rest/application/upgrade,
 * https://kb.cloudblue.com/en/120574): the same application id, a newer version-release that the
 * new package's `<upgrade match>` admits; the instance and every resource it serves move to the
 * new package (same ids, links, owners, subscriptions; types per service, upgrade-plan.ts) with the
 * root `aps:upgrading`; then the endpoint is asked to upgrade
 * (`POST <root service>/<root id>/upgrade?version=<old version-release>`) and sees the new types
 * while it does. 200/204 ends it `aps:ready`; anything else puts everything back and answers
 * with the application's error. 202 is not taken: an upgrade must finish within its call.
 */
import { randomUUID } from "node:crypto";
import { eq, inArray } from "drizzle-orm";
import type { Caller } from "../auth/caller.ts";
import { requireProviderAdmin } from "../auth/caller.ts";
import type { Forwarder } from "../forward/forwarder.ts";
import type { PackageCatalog, PackageRecord } from "../packages/catalog.ts";
import { comparePackageVersions, versionText } from "../packages/package-version.ts";
import { allowsUpdateFrom, updateMatches } from "../packages/upgrade-match.ts";
import { forwardOrigin } from "../resources/applications.ts";
import type { Db } from "../store/open-database.ts";
import type { ResourceRows } from "../store/resource-rows.ts";
import { links, resources } from "../store/schema.ts";
import { ControllerError } from "../support/errors.ts";
import type { InstanceLookup, InstanceRow } from "./instance-lookup.ts";
import { planUpgrade, type PlannedResource } from "./upgrade-plan.ts";
import type { UpgradeRequest } from "./upgrade-request.ts";
import { INSTANCE_UPGRADING, UpgradeStore } from "./upgrade-store.ts";

/**
 * How long an upgrade may run before another request may take it for abandoned (its process
 * died) and roll it back: longer than any endpoint call is let run.
 */
const UPGRADE_LEASE_MS = 15 * 60_000;

export class InstanceUpgrade {
  private readonly store: UpgradeStore;

  constructor(
    private readonly db: Db,
    private readonly catalog: PackageCatalog,
    private readonly lookup: InstanceLookup,
    private readonly forwarder: Forwarder,
    private readonly rows: ResourceRows,
  ) {
    this.store = new UpgradeStore(db, rows);
  }

  /** The instance's application id, for a request that names the target by version alone. */
  async applicationOf(caller: Caller, id: string): Promise<string> {
    requireProviderAdmin(caller, "upgrade application instances");
    await this.catalog.refresh();
    const from = this.catalog.get((await this.instance(id)).packageId);
    if (!from)
      throw new ControllerError(
        409,
        `The package instance ${id} was installed from is no longer known here; it cannot be upgraded.`,
      );
    return from.appId;
  }

  async upgrade(caller: Caller, id: string, request: UpgradeRequest): Promise<void> {
    requireProviderAdmin(caller, "upgrade application instances");
    let instance = await this.instance(id);
    if (instance.status === INSTANCE_UPGRADING) instance = await this.takeOverStale(instance);
    const from = this.catalog.get(instance.packageId);
    if (!from)
      throw new ControllerError(
        409,
        `The package instance ${id} was installed from is no longer known here; it cannot be upgraded.`,
      );
    refuseTarget(from, request.to);
    if (!instance.rootResource)
      throw new ControllerError(409, `Instance ${id} has no application root resource; uninstall it with ?force=true.`);
    const plan = planUpgrade({
      registry: this.catalog.registry,
      validators: this.catalog.validators,
      to: request.to,
      rootId: instance.rootResource,
      rootService: instance.rootService,
      resources: await this.resourcesOf(instance.id),
      settings: request.settings,
    });
    const transactionId = randomUUID();
    await this.store.begin({
      instanceId: id,
      rootId: instance.rootResource,
      fromPackage: from.id,
      toPackage: request.to.id,
      transactionId,
      leaseMs: UPGRADE_LEASE_MS,
      plan,
    });
    this.lookup.forget();
    try {
      const outcome = await this.forwarder.upgrade(
        this.lookup.targetOfRow(instance),
        plan.rootType,
        instance.rootResource,
        versionText(from),
        { ...forwardOrigin(caller), transactionId },
      );
      if (outcome.kind === "accepted")
        throw new ControllerError(
          502,
          `The endpoint ${instance.endpoint} answered the upgrade with 202; an upgrade must finish within its call, so the instance stays on ${from.version}-${from.release}.`,
        );
    } catch (error) {
      await this.store.rollback(id, transactionId);
      this.lookup.forget();
      throw error;
    }
    try {
      await this.store.finish(id, instance.rootResource, transactionId);
    } finally {
      this.lookup.forget();
    }
  }

  private async instance(id: string): Promise<InstanceRow> {
    const row = await this.lookup.byId(id);
    if (!row) throw new ControllerError(404, `Instance ${id} does not exist.`);
    return row;
  }

  /** An instance marked upgrading: still running elsewhere (409), or left by a process that died, which is rolled back first. */
  private async takeOverStale(instance: InstanceRow): Promise<InstanceRow> {
    const running = await this.store.running(instance.id);
    if (running && !running.stale)
      throw new ControllerError(409, `Instance ${instance.id} is being upgraded; wait for that upgrade to end.`);
    await this.store.rollback(instance.id);
    this.lookup.forget();
    return this.instance(instance.id);
  }

  /** Every resource the instance serves, with its values opened and the relations it holds links of. */
  private async resourcesOf(instanceId: string): Promise<PlannedResource[]> {
    const rows = await this.db.select().from(resources).where(eq(resources.instanceId, instanceId));
    const held = rows.length
      ? await this.db
          .select({ source: links.sourceId, relation: links.relation })
          .from(links)
          .where(
            inArray(
              links.sourceId,
              rows.map((r) => r.id),
            ),
          )
      : [];
    const relations = new Map<string, Set<string>>();
    for (const l of held) relations.set(l.source, (relations.get(l.source) ?? new Set()).add(l.relation));
    return rows.map((r) => ({
      id: r.id,
      typeId: r.typeId,
      revision: r.revision,
      values: { ...r.body, ...this.rows.secrets(r) },
      relations: relations.get(r.id) ?? new Set(),
    }));
  }
}

/** 409 unless `to` is a newer version of the same application that admits `from` (https://docs.cloudblue.com/cbc/sdk/21.0/api/package/updates). */
function refuseTarget(from: PackageRecord, to: PackageRecord): void {
  const label = (p: PackageRecord) => `${p.metaName ?? p.name} ${versionText(p)}`;
  if (to.appId !== from.appId)
    throw new ControllerError(
      409,
      `Package ${to.id} is ${to.appId}, another application than the instance's ${from.appId}; an upgrade keeps the application id.`,
    );
  if (comparePackageVersions(to, from) <= 0)
    throw new ControllerError(
      409,
      `${label(to)} is not newer than the installed ${label(from)}; an instance upgrades only to a newer version.`,
    );
  const matches = updateMatches(to.files);
  if (!allowsUpdateFrom(matches, from))
    throw new ControllerError(
      409,
      `${label(to)} does not upgrade ${versionText(from)}: its APP-META.xml admits ${matches.map((m) => `"${m}"`).join(" or ")}.`,
    );
}
