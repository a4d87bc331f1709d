/**
 * The database side of an instance upgrade, each step one transaction so no reader (and no crash)
 * ever sees an instance half moved:
 * - `begin`: the instance, its resources and their subscriptions move to the new package, the
 *   root turns `aps:upgrading`, and what they were is kept in `upgrade_snapshots`;
 * - `finish`: the root is `aps:ready` again and the snapshot goes;
 * - `rollback`: every snapshotted resource, subscription and the instance are put back as they were.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { ResourceStatus } from "../../common/core-types.ts";
import type { Db } from "../store/open-database.ts";
import { rowsOf } from "../store/open-database.ts";
import type { ResourceRows } from "../store/resource-rows.ts";
import { instances, instanceUpgrades, resources, subscriptions } from "../store/schema.ts";
import { ControllerError } from "../support/errors.ts";
import type { UpgradePlan } from "./upgrade-plan.ts";

/** The instance's status while its upgrade runs; `ready` otherwise. */
export const INSTANCE_UPGRADING = "upgrading";

export interface UpgradeStart {
  readonly instanceId: string;
  readonly rootId: string;
  readonly fromPackage: string;
  readonly toPackage: string;
  readonly transactionId: string;
  readonly leaseMs: number;
  readonly plan: UpgradePlan;
}

export class UpgradeStore {
  constructor(
    private readonly db: Db,
    private readonly rows: ResourceRows,
  ) {}

  async begin(start: UpgradeStart): Promise<void> {
    const now = new Date().toISOString();
    await this.db.transaction(async (tx) => {
      // Taking the instance from ready to upgrading is the lock: a second upgrade finds it taken.
      const taken = await tx
        .update(instances)
        .set({ packageId: start.toPackage, status: INSTANCE_UPGRADING })
        .where(
          and(
            eq(instances.id, start.instanceId),
            eq(instances.status, "ready"),
            eq(instances.packageId, start.fromPackage),
          ),
        )
        .returning({ id: instances.id });
      if (!taken.length) throw changedMeanwhile(start.instanceId);
      const moved = await tx
        .select({ id: subscriptions.id, sourceType: subscriptions.sourceType })
        .from(subscriptions)
        .innerJoin(resources, eq(resources.id, subscriptions.subscriberId))
        .where(
          and(
            eq(resources.instanceId, start.instanceId),
            inArray(subscriptions.sourceType, [...start.plan.renamed.keys(), ""]),
          ),
        );
      await tx.insert(instanceUpgrades).values({
        instanceId: start.instanceId,
        fromPackage: start.fromPackage,
        toPackage: start.toPackage,
        transactionId: start.transactionId,
        leaseUntil: new Date(Date.now() + start.leaseMs).toISOString(),
        subscriptions: JSON.stringify(moved),
        created: now,
      });
      const copied =
        await tx.execute(sql`insert into upgrade_snapshots (instance_id, resource_id, type_id, package_id, status, revision, modified, body, secrets)
        select instance_id, id, type_id, package_id, status, revision, modified, body, secrets from resources where instance_id = ${start.instanceId} returning resource_id`);
      if (rowsOf(copied).length !== start.plan.resourceCount) throw changedMeanwhile(start.instanceId);
      await tx.update(resources).set({ packageId: start.toPackage }).where(eq(resources.instanceId, start.instanceId));
      for (const m of start.plan.moves) {
        const columns = this.rows.columns(m.type.properties, m.id, m.values);
        const done = await tx
          .update(resources)
          .set({
            typeId: m.type.id,
            ...columns,
            revision: sql`${resources.revision} + 1`,
            modified: now,
            ...(m.id === start.rootId ? { status: ResourceStatus.upgrading } : {}),
          })
          .where(and(eq(resources.id, m.id), eq(resources.revision, m.revision)))
          .returning({ id: resources.id });
        if (!done.length) throw changedMeanwhile(start.instanceId);
      }
      for (const s of moved)
        await tx
          .update(subscriptions)
          .set({ sourceType: start.plan.renamed.get(s.sourceType!)! })
          .where(eq(subscriptions.id, s.id));
    });
  }

  /**
   * The upgrade of an instance is done: its root is ready, the snapshot goes. A 409 when the
   * upgrade is no longer this one's (its lease passed and another request rolled it back).
   */
  async finish(instanceId: string, rootId: string, transactionId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const mine = await tx
        .delete(instanceUpgrades)
        .where(and(eq(instanceUpgrades.instanceId, instanceId), eq(instanceUpgrades.transactionId, transactionId)))
        .returning({ id: instanceUpgrades.instanceId });
      if (!mine.length)
        throw new ControllerError(
          409,
          `The upgrade of instance ${instanceId} ran past its lease and another request rolled it back; read the instance and repeat if it is not on the package asked for.`,
        );
      await tx
        .update(resources)
        .set({ status: ResourceStatus.ready })
        .where(and(eq(resources.id, rootId), eq(resources.status, ResourceStatus.upgrading)));
      await tx.update(instances).set({ status: "ready" }).where(eq(instances.id, instanceId));
    });
  }

  /**
   * Puts the instance, its resources and their subscriptions back as they were before the
   * upgrade; with `transactionId`, only that upgrade (not one another request started since).
   */
  async rollback(instanceId: string, transactionId?: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [upgrade] = await tx
        .select()
        .from(instanceUpgrades)
        .where(eq(instanceUpgrades.instanceId, instanceId))
        .for("update");
      if (!upgrade || (transactionId !== undefined && upgrade.transactionId !== transactionId)) return;
      await tx.execute(sql`update resources r set type_id = s.type_id, package_id = s.package_id, status = s.status, revision = s.revision, modified = s.modified, body = s.body, secrets = s.secrets
        from upgrade_snapshots s where s.instance_id = ${instanceId} and r.id = s.resource_id`);
      for (const s of JSON.parse(upgrade.subscriptions) as { id: string; sourceType: string }[])
        await tx.update(subscriptions).set({ sourceType: s.sourceType }).where(eq(subscriptions.id, s.id));
      await tx
        .update(instances)
        .set({ packageId: upgrade.fromPackage, status: "ready" })
        .where(eq(instances.id, instanceId));
      await tx.delete(instanceUpgrades).where(eq(instanceUpgrades.instanceId, instanceId));
    });
  }

  /** The upgrade under way for an instance, and whether the process running it may have died (its lease passed). */
  async running(instanceId: string): Promise<{ toPackage: string; stale: boolean } | undefined> {
    const rows = rowsOf<{ to_package: string; stale: boolean }>(
      await this.db.execute(
        sql`select to_package, lease_until < now() as stale from instance_upgrades where instance_id = ${instanceId}`,
      ),
    );
    const row = rows[0];
    return row ? { toPackage: row.to_package, stale: row.stale === true || String(row.stale) === "t" } : undefined;
  }
}

/** A write raced the upgrade between planning and moving: nothing moved, and the request may be repeated. */
function changedMeanwhile(instanceId: string): ControllerError {
  return new ControllerError(
    409,
    `Instance ${instanceId} or one of its resources changed while the upgrade was prepared; nothing was upgraded, repeat the request.`,
  );
}
