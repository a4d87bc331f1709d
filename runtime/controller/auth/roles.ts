/**
 * Roles of a caller on one resource (docs/aps/security.md, "Roles"): owner when its account owns
 * the resource, admin when its account is an ancestor of the owner (the provider is admin of
 * everything, its own resources included), referrer when its account owns a resource linked with it
 * in either direction, and public always. A caller may hold several at once.
 *
 * An application instance (docs/aps/security.md, "Applications as callers") holds every
 * role and {@link SERVING_APPLICATION} on the resources it serves; on a resource linked to one of
 * them (either direction), and on the account and subscription they belong to, it is a
 * referrer; elsewhere it has the public role only.
 */
import { RoleBit } from "../../common/actor.ts";
import type { RegistryType } from "../registry.ts";
import type { ResourceStore, StoredResource } from "../store/resource-store.ts";
import type { Caller } from "./caller.ts";

/**
 * Not a role of access objects: marks the application that serves the resource, which property
 * access does not limit and which may write readonly properties (docs/aps/security.md,
 * "Applications as callers"). No access object has this bit, so `access & roles` tests are
 * unchanged by it.
 */
export const SERVING_APPLICATION = 16;
/** What the serving application holds on its own resources. */
export const SERVING_ROLES = RoleBit.admin | RoleBit.owner | RoleBit.referrer | RoleBit.public | SERVING_APPLICATION;

const accessSetsOf = new WeakMap<RegistryType, readonly number[]>();

/** The distinct access sets of a type's properties and operations that grant referrers. */
function referrerSets(type: RegistryType): readonly number[] {
  let sets = accessSetsOf.get(type);
  if (!sets) {
    const all = [
      ...Object.values(type.properties).map((p) => p.access),
      ...Object.values(type.operations).map((o) => o.access),
    ];
    sets = [...new Set(all.filter((a) => (a & RoleBit.referrer) !== 0))];
    accessSetsOf.set(type, sets);
  }
  return sets;
}

/** The caller speaks for the provider: the root of the account tree. */
function isProvider(caller: Caller): boolean {
  return caller.accountPath === `/${caller.accountId}/`;
}

/**
 * The role bits the caller holds on `row`. The referrer test needs a query, so it runs only when
 * being a referrer could change an answer: some access set of the type grants referrers but
 * none of the roles the caller already holds.
 */
export async function rolesOn(
  row: StoredResource,
  caller: Caller,
  store: ResourceStore,
  type: RegistryType | undefined,
): Promise<number> {
  let roles = RoleBit.public;
  if (caller.kind === "application") {
    if (caller.instanceId && row.instanceId === caller.instanceId) return SERVING_ROLES;
    return caller.instanceId && (await store.isApplicationReferrer(row.id, caller.instanceId))
      ? roles | RoleBit.referrer
      : roles;
  }
  if (!caller.accountId || !caller.accountPath) return roles;
  if (row.ownerAccount === caller.accountId) roles |= RoleBit.owner;
  // Admin is the administrator of the owner (docs/aps/security.md, "Roles"): an account above it,
  // and the provider, which has none above, also of what it owns itself (so its own Suspendable
  // resources can be disabled).
  if (row.ownerPath.startsWith(caller.accountPath) && (row.ownerAccount !== caller.accountId || isProvider(caller)))
    roles |= RoleBit.admin;
  const matters = type ? referrerSets(type).some((set) => (set & roles) === 0) : true;
  if (matters && (await store.isReferrer(row.id, caller.accountId))) roles |= RoleBit.referrer;
  // An application acting as a customer keeps its own rights on the customer's resources it serves.
  if (caller.instanceId && row.instanceId === caller.instanceId && (roles & ~RoleBit.public) !== 0)
    roles |= SERVING_ROLES;
  return roles;
}
