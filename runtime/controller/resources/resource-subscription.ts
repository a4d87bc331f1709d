/**
 * The subscription a new resource belongs to (`aps.subscription`). On the platform a resource
 * created in a subscription carries its id, and applications read it from the provisioning body
 * (roluch/fallball-connector connector/v1/resources/tenant.py:56-57 then reads the subscription,
 * :188). aps-gen has no subscription context of its own, so it takes it from what the caller
 * gave, in this order:
 *
 * 1. `aps.subscription` in the body, naming a subscription the caller can see;
 * 2. a link of the body to a subscription (a subscriptionService's `subscription` relation);
 * 3. the subscription of a resource a required singular link of the body points at (a user's
 *    service linked to its tenant belongs to the tenant's subscription).
 *
 * 1 and 2 must agree. See docs/aps/platform-bodies.md.
 */
import { CoreTypeIds } from "../../common/core-types.ts";
import type { Caller } from "../auth/caller.ts";
import { implementsType, type RegistryType } from "../registry.ts";
import type { StoredLink, StoredResource } from "../store/resource-store.ts";
import { ControllerError } from "../support/errors.ts";
import type { ResourceContext } from "./resource-context.ts";

/** A link a provisioning body names, with the row it points at. */
export interface TargetedLink extends StoredLink {
  readonly target?: StoredResource;
}

export async function subscriptionOf(
  ctx: ResourceContext,
  caller: Caller,
  type: RegistryType,
  input: Record<string, unknown>,
  links: readonly TargetedLink[],
): Promise<string | undefined> {
  const registry = ctx.catalog.registry;
  const isSubscription = (row: StoredResource) => implementsType(registry, row.typeId, CoreTypeIds.subscription);
  const named = (input.aps as { subscription?: unknown } | undefined)?.subscription;
  let given: string | undefined;
  if (named !== undefined && named !== null) {
    if (typeof named !== "string")
      throw new ControllerError(400, "aps.subscription must be the id of a subscription resource.");
    const found = await ctx.access.linkTarget(caller, named);
    if (!found || !isSubscription(found.row))
      throw new ControllerError(400, `aps.subscription names ${named}, which is not a subscription you can see.`);
    given = named;
  }
  const linked = links.find((l) => l.target && isSubscription(l.target))?.targetId;
  if (given && linked && given !== linked)
    throw new ControllerError(
      400,
      `aps.subscription (${given}) and the linked subscription (${linked}) differ; name one.`,
    );
  if (given ?? linked) return given ?? linked;
  for (const l of links) {
    const rel = type.relations[l.relation];
    if (rel?.required && !rel.collection && l.target?.subscription) return l.target.subscription;
  }
  return undefined;
}
