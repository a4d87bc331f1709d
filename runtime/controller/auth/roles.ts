/**
 * Roles of a caller on one resource (DESIGN 3, aps-facts 6): owner when its account owns the
 * resource, admin when its account is an ancestor of the owner (the provider is admin of
 * everything), referrer when its account owns a resource linked to it, and public always.
 */
import { RoleBit } from "../../common/actor.ts";
import type { ResourceStore, StoredResource } from "../store/resource-store.ts";
import type { Caller } from "./caller.ts";

/**
 * The role bits the caller holds on `row`. The referrer test needs a query, so it runs only when
 * `wanted` (the roles that would make a difference) includes referrer and no cheaper role decides.
 */
export async function rolesOn(row: StoredResource, caller: Caller, store: ResourceStore, wanted = -1): Promise<number> {
  let roles = RoleBit.public;
  if (!caller.accountId || !caller.accountPath) return roles;
  if (row.ownerAccount === caller.accountId) roles |= RoleBit.owner;
  else if (row.ownerPath.startsWith(caller.accountPath)) roles |= RoleBit.admin;
  if ((wanted & RoleBit.referrer) !== 0 && (wanted & roles) === 0 && (await store.isReferrer(row.id, caller.accountId))) roles |= RoleBit.referrer;
  return roles;
}
