/**
 * Roles of a caller on one resource (DESIGN 3, aps-facts 6): owner when its account owns the
 * resource, admin when its account is an ancestor of the owner (the provider is admin of
 * everything), referrer when its account owns a resource linked to it, and public always. A
 * caller may hold several at once.
 */
import { RoleBit } from "../../common/actor.ts";
import type { RegistryType } from "../registry.ts";
import type { ResourceStore, StoredResource } from "../store/resource-store.ts";
import type { Caller } from "./caller.ts";

const accessSetsOf = new WeakMap<RegistryType, readonly number[]>();

/** The distinct access sets of a type's properties and operations that grant referrers. */
function referrerSets(type: RegistryType): readonly number[] {
  let sets = accessSetsOf.get(type);
  if (!sets) {
    const all = [...Object.values(type.properties).map((p) => p.access), ...Object.values(type.operations).map((o) => o.access)];
    sets = [...new Set(all.filter((a) => (a & RoleBit.referrer) !== 0))];
    accessSetsOf.set(type, sets);
  }
  return sets;
}

/**
 * The role bits the caller holds on `row`. The referrer test needs a query, so it runs only when
 * being a referrer could change an answer: some access set of the type grants referrers but
 * none of the roles the caller already holds.
 */
export async function rolesOn(row: StoredResource, caller: Caller, store: ResourceStore, type: RegistryType | undefined): Promise<number> {
  let roles = RoleBit.public;
  if (!caller.accountId || !caller.accountPath) return roles;
  if (row.ownerAccount === caller.accountId) roles |= RoleBit.owner;
  else if (row.ownerPath.startsWith(caller.accountPath)) roles |= RoleBit.admin;
  const matters = type ? referrerSets(type).some((set) => (set & roles) === 0) : true;
  if (matters && (await store.isReferrer(row.id, caller.accountId))) roles |= RoleBit.referrer;
  return roles;
}
