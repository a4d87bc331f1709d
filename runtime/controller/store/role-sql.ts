/**
 * The roles of DESIGN 3 as SQL conditions on a resources row, for lists: which rows a caller may
 * see, and on which rows it may read a given property (so that a filter or sort on a property
 * says nothing about values the caller cannot read).
 */
import { sql, type SQL } from "drizzle-orm";
import { RoleBit } from "../../common/actor.ts";
import type { Caller } from "../auth/caller.ts";
import type { TypeRegistry } from "../registry.ts";
import { resources } from "./schema.ts";

const DEFAULT_RETRIEVE = RoleBit.admin | RoleBit.owner | RoleBit.referrer;

/** True on rows where the caller holds one of the roles in `bits`. */
export function holdsRole(bits: number, caller: Caller): SQL {
  if (bits & RoleBit.public) return sql`true`;
  if (!caller.accountId || !caller.accountPath) return sql`false`;
  const parts: SQL[] = [];
  if (bits & RoleBit.owner) parts.push(sql`${resources.ownerAccount} = ${caller.accountId}`);
  if (bits & RoleBit.admin) {
    const prefix = `${caller.accountPath.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    parts.push(sql`(${resources.ownerPath} like ${prefix} and ${resources.ownerAccount} <> ${caller.accountId})`);
  }
  if (bits & RoleBit.referrer) {
    parts.push(sql`exists (select 1 from links l join resources s on s.id = l.source_id where l.target_id = ${resources.id} and s.owner_account = ${caller.accountId})`);
  }
  return parts.length ? sql`(${sql.join(parts, sql` or `)})` : sql`false`;
}

/** Rows of types grouped by one access set, each group tested once. */
function byAccess(registry: TypeRegistry, accessOf: (typeId: string) => number | undefined, caller: Caller): SQL {
  const groups = new Map<number, string[]>();
  for (const t of registry.values()) {
    const bits = accessOf(t.id);
    if (bits === undefined) continue;
    groups.set(bits, [...(groups.get(bits) ?? []), t.id]);
  }
  const parts = [...groups].map(([bits, ids]) => sql`(${resources.typeId} in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)}) and ${holdsRole(bits, caller)})`);
  return parts.length ? sql`(${sql.join(parts, sql` or `)})` : sql`false`;
}

/** Rows the caller may list: those whose type's retrieve operation allows a role it holds. */
export function visibleRows(registry: TypeRegistry, caller: Caller): SQL {
  return byAccess(registry, (id) => registry.get(id)!.operations.retrieve?.access ?? DEFAULT_RETRIEVE, caller);
}

/**
 * Rows on which the caller may read property `name` (SPEC 2.7): filters and sorts only look at
 * it there. Encrypted properties are never in the body, so they never match anyway.
 */
export function readableProperty(registry: TypeRegistry, name: string, caller: Caller): SQL {
  return byAccess(registry, (id) => registry.get(id)!.properties[name]?.access, caller);
}
