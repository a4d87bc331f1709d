/**
 * The roles (docs/aps/security.md, "Roles") as SQL conditions on a resources row, for lists: which
 * rows a caller may see, and on which rows it may read a given property (so that a filter or sort
 * on a property says nothing about values the caller cannot read).
 */
import { sql, type SQL } from "drizzle-orm";
import { RoleBit } from "../../common/actor.ts";
import type { Caller } from "../auth/caller.ts";
import { likePrefix } from "./like-pattern.ts";
import { operationAccess, type TypeRegistry } from "../registry.ts";
import { resources } from "./schema.ts";

/**
 * True on rows an application instance reaches as a referrer (auth/roles.ts): linked to one of
 * its resources in either direction, the account or the subscription one of them belongs to,
 * and, while it provisions a resource (a provisioning intent, intents/intent-store.ts), what
 * that resource will be linked to, its subscription and its owner account: the platform lets an
 * application read the account and the user it provisions for during the call (FallBall reads
 * them there, connector/v1/resources/tenant.py:180, user.py:43).
 */
export function reachedByInstance(instanceId: unknown): SQL {
  return sql`(exists (select 1 from links l join resources s on s.id = l.source_id where l.target_id = ${resources.id} and s.instance_id = ${instanceId})
    or exists (select 1 from links l join resources t on t.id = l.target_id where l.source_id = ${resources.id} and t.instance_id = ${instanceId})
    or exists (select 1 from resources m where m.instance_id = ${instanceId} and m.owner_account = ${resources.id})
    or exists (select 1 from resources m where m.instance_id = ${instanceId} and m.subscription = ${resources.id})
    or exists (select 1 from provisioning_intents p where p.instance_id = ${instanceId} and ${resources.id} = any(p.reaches)))`;
}

/**
 * True on rows `accountId` is a referrer of: linked, in either direction, with a resource the
 * account owns. The APS access page's example (docs/aps/security.md, "Roles"): a customer's VPS
 * linking to the provider's offer makes the customer referrer on the offer and the provider
 * referrer on the VPS.
 */
export function linkedWithAccount(accountId: unknown): SQL {
  return sql`(exists (select 1 from links l join resources s on s.id = l.source_id where l.target_id = ${resources.id} and s.owner_account = ${accountId})
    or exists (select 1 from links l join resources t on t.id = l.target_id where l.source_id = ${resources.id} and t.owner_account = ${accountId}))`;
}

/** True on rows where the caller holds one of the roles in `bits`. */
function holdsRole(bits: number, caller: Caller): SQL {
  if (caller.kind === "application") {
    // The serving application holds every role on its own resources, whatever the access says.
    const own = sql`${resources.instanceId} = ${caller.instanceId ?? null}`;
    if (bits & RoleBit.public) return sql`true`;
    return bits & RoleBit.referrer && caller.instanceId
      ? sql`(${own} or ${reachedByInstance(caller.instanceId)})`
      : own;
  }
  if (bits & RoleBit.public) return sql`true`;
  if (!caller.accountId || !caller.accountPath) return sql`false`;
  const prefix = likePrefix(caller.accountPath);
  // The provider (root of the tree) administers every resource, its own too (auth/roles.ts): when
  // admin is allowed, nothing else needs testing (no owner or referrer subqueries to plan).
  if (bits & RoleBit.admin && isProviderAdmin(caller)) return sql`${resources.ownerPath} like ${prefix}`;
  const parts: SQL[] = [];
  if (bits & RoleBit.owner) parts.push(sql`${resources.ownerAccount} = ${caller.accountId}`);
  if (bits & RoleBit.admin)
    parts.push(sql`(${resources.ownerPath} like ${prefix} and ${resources.ownerAccount} <> ${caller.accountId})`);
  if (bits & RoleBit.referrer) parts.push(linkedWithAccount(caller.accountId));
  return parts.length ? sql`(${sql.join(parts, sql` or `)})` : sql`false`;
}

/**
 * Type ids grouped by access bits, per registry and per question ("retrieve" or a property
 * name). Computed once per registry (imports replace the registry whole), not per request.
 */
const groupCache = new WeakMap<TypeRegistry, Map<string, [number, string[]][]>>();

function groupsOf(
  registry: TypeRegistry,
  key: string,
  accessOf: (typeId: string) => number | undefined,
): [number, string[]][] {
  let perRegistry = groupCache.get(registry);
  if (!perRegistry) groupCache.set(registry, (perRegistry = new Map()));
  let groups = perRegistry.get(key);
  if (!groups) {
    const byBits = new Map<number, string[]>();
    for (const t of registry.values()) {
      const bits = accessOf(t.id);
      if (bits !== undefined) byBits.set(bits, [...(byBits.get(bits) ?? []), t.id]);
    }
    groups = [...byBits];
    perRegistry.set(key, groups);
  }
  return groups;
}

/** Rows of types grouped by one access set, each group tested once; with `scope`, only rows of those types. */
function byAccess(groups: readonly [number, string[]][], caller: Caller, scope?: readonly string[]): SQL {
  const parts: SQL[] = [];
  for (const [bits, all] of groups) {
    const ids = scope ? all.filter((id) => scope.includes(id)) : all;
    if (ids.length)
      parts.push(
        sql`(${resources.typeId} in (${sql.join(
          ids.map((id) => sql`${id}`),
          sql`, `,
        )}) and ${holdsRole(bits, caller)})`,
      );
  }
  return parts.length ? sql`(${sql.join(parts, sql` or `)})` : sql`false`;
}

const retrieveOf = (registry: TypeRegistry) => (id: string) => operationAccess(registry.get(id)!, "retrieve");

/** Rows the caller may list: those whose type's retrieve operation allows a role it holds; with `scope`, of those types only. */
export function visibleRows(registry: TypeRegistry, caller: Caller, scope?: readonly string[]): SQL {
  return byAccess(groupsOf(registry, "retrieve", retrieveOf(registry)), caller, scope);
}

/**
 * Rows on which the caller may read property `name` (its `access` roles), among those it sees: filters
 * and sorts only look at it there. Undefined when that is every row it sees (of `scope`'s types,
 * when given): each type that declares it lets every role that retrieves read it, or the caller
 * is the provider's administrator and the property lets admins read it. A type that does not
 * declare it has no such value to compare. Encrypted properties are never in the body.
 */
export function readableProperty(
  registry: TypeRegistry,
  name: string,
  caller: Caller,
  scope?: readonly string[],
): SQL | undefined {
  const propertyAccess = (id: string) => registry.get(id)!.properties[name]?.access;
  const retrieve = retrieveOf(registry);
  const types = scope ?? [...registry.keys()];
  const everywhere = types.every((id) => {
    const bits = propertyAccess(id);
    return bits === undefined || (retrieve(id) & ~bits) === 0 || (bits & RoleBit.admin && isProviderAdmin(caller));
  });
  return everywhere ? undefined : byAccess(groupsOf(registry, `property:${name}`, propertyAccess), caller, scope);
}

/** The provider's administrator: admin on every resource (holdsRole's first shortcut). */
function isProviderAdmin(caller: Caller): boolean {
  return caller.kind !== "application" && !!caller.accountId && caller.accountPath === `/${caller.accountId}/`;
}
