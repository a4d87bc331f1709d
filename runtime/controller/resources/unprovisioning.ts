/**
 * Unprovision (`DELETE /aps/2/resources/{id}`, docs/aps/lifecycle.md, "Base operations"): refused
 * while strong links point here, and for an account while it holds anything; the resource is marked
 * `aps:unprovisioning` first, the application told next, and the row deleted (or left to the
 * asynchronous task) last.
 */
import { ResourceStatus } from "../../common/core-types.ts";
import type { Caller } from "../auth/caller.ts";
import type { RegistryType } from "../registry.ts";
import { accountHoldings, lockAccount } from "../store/account-holdings.ts";
import type { Db } from "../store/open-database.ts";
import type { StoredResource } from "../store/resource-store.ts";
import { ControllerError } from "../support/errors.ts";
import { applicationsFor, forwardOrigin, requireNoPendingTask } from "./applications.ts";
import { removalEvents } from "./removal-events.ts";
import type { ResourceContext } from "./resource-context.ts";

/** What an unprovision answers: nothing, or that the application took it for later (202). */
export interface UnprovisionResult {
  readonly accepted?: { info: string; retrySeconds: number };
}

export async function unprovision(ctx: ResourceContext, caller: Caller, id: string): Promise<UnprovisionResult> {
  const { type, row } = await ctx.access.visible(caller, id, "unprovision");
  const isAccount = row.ownerAccount === row.id;
  if (isAccount) await ctx.store.transaction((tx) => requireNothingHeld(tx, row, type));
  // Marked aps:unprovisioning and committed before anything else: from then on no link to it
  // is accepted (the database refuses them, migration 0007), and the strong links checked in
  // that transaction are all there will be.
  const previous = await ctx.store.beginUnprovisioning(id, (linksTo) => {
    const strong = linksTo.filter((l) => ctx.catalog.registry.get(l.sourceType)?.relations[l.relation]?.required);
    if (strong.length) {
      const first = strong[0]!;
      throw new ControllerError(
        409,
        `${strong.length} resource(s) hold a strong link to this one (first: ${first.sourceId} through "${first.relation}"); remove them first.`,
      );
    }
  });
  if (previous === undefined) throw new ControllerError(404, `Resource ${id} does not exist.`);
  try {
    return await unprovisionMarked(ctx, caller, id, row, type, isAccount);
  } catch (error) {
    // Refused (by the application, or the checks below): the resource is as it was.
    await ctx.store.endUnprovisioning(id, previous).catch(() => undefined);
    throw error;
  }
}

/** The rest of {@link unprovision}, once the resource is marked `aps:unprovisioning`. */
async function unprovisionMarked(
  ctx: ResourceContext,
  caller: Caller,
  id: string,
  row: StoredResource,
  type: RegistryType,
  isAccount: boolean,
): Promise<UnprovisionResult> {
  const registry = ctx.catalog.registry;
  if (type.servedBy === "application") {
    await requireNoPendingTask(ctx.applications, id);
    const app = applicationsFor(ctx.applications, type);
    const { target } = await app.targetFor(type);
    const outcome = await app.forwarder.unprovision(target, type, id, forwardOrigin(caller));
    if (outcome.kind === "accepted") {
      await ctx.store.transaction(async (tx) => {
        await ctx.store.update(
          id,
          row.revision,
          {
            body: row.body,
            secrets: row.secrets,
            modified: new Date().toISOString(),
            status: ResourceStatus.unprovisioning,
          },
          tx,
        );
        await app.tasks.schedule(tx, {
          resourceId: id,
          operation: "unprovision",
          instanceId: target.instanceId,
          call: outcome.call,
          info: outcome.info,
          retrySeconds: outcome.retrySeconds,
        });
      });
      return { accepted: { info: outcome.info, retrySeconds: outcome.retrySeconds } };
    }
  }
  if (isAccount) {
    // Checked again with the account's row locked: nothing is provisioned into it between the check and the delete.
    // Read before the transaction: it runs on its own connection, which PGlite (one connection) would wait for.
    const events = await removalEvents(ctx.store, registry, row);
    await ctx.store.transaction(async (tx) => {
      if (!(await lockAccount(tx, id))) throw new ControllerError(404, `Resource ${id} does not exist.`);
      await requireNothingHeld(tx, row, type);
      await ctx.store.delete(id, tx, events);
    });
    return {};
  }
  if (!(await ctx.store.delete(id, undefined, await removalEvents(ctx.store, registry, row))))
    throw new ControllerError(404, `Resource ${id} does not exist.`);
  return {};
}

/**
 * 409 while an account holds resources (store/account-holdings.ts): deleting it would leave
 * them without an owner, and its tokens are refused once it is gone (auth/caller.ts).
 */
async function requireNothingHeld(db: Db, account: StoredResource, type: RegistryType): Promise<void> {
  const collections = Object.entries(type.relations)
    .filter(([, r]) => r.collection)
    .map(([name]) => name);
  const held = await accountHoldings(db, account.id, account.ownerPath, collections);
  if (held.total > 0) {
    throw new ControllerError(
      409,
      `Account ${account.id} still holds ${held.total} resource(s) (its own, its accounts' and those its ${collections.length ? collections.join(", ") : "collections"} link to; first: ${held.first.join(", ")}); unprovision or unlink them first.`,
    );
  }
}
