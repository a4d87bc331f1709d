/**
 * The other end of a link (issue 16 item 9). A link is stored once, from the resource whose
 * relation names it: a tenant provisioned with `"account": {"aps": {"id": A}}` holds the link
 * tenant → A under `account`. When A's type declares a collection of tenants, the tenant belongs
 * in it too, exactly as if it had been provisioned through that collection
 * (`POST /aps/2/resources/A/tenants`), which stores the link from A's side as well.
 *
 * Which collection: the platform's documentation (docs/aps/relations.md) says only that a
 * relation names the type of the other end and that a link may reach a resource whose type has
 * no matching relation (an "anonymous backward relation"); it gives no rule for choosing among
 * several. The rule here: the collection relations of the target's type whose declared type the
 * source's type implements; of those, the most specific one (whose type implements all the
 * others'). When no single one is most specific (two collections of the same type, say), the
 * link is anonymous on that side: it shows in `GET .../aps/links`, not in a collection.
 */
import { sql, type SQL } from "drizzle-orm";
import { implementsType, type RegistryType, type TypeRegistry } from "../registry.ts";
import { resources } from "../store/schema.ts";

const cache = new WeakMap<TypeRegistry, Map<string, string | null>>();

/** The collection relation of `targetType` that shows resources of `sourceTypeId` linking to it; undefined when none or ambiguous. */
export function backwardCollection(
  registry: TypeRegistry,
  targetType: RegistryType,
  sourceTypeId: string,
): string | undefined {
  let perRegistry = cache.get(registry);
  if (!perRegistry) cache.set(registry, (perRegistry = new Map()));
  const key = `${targetType.id}\n${sourceTypeId}`;
  let found = perRegistry.get(key);
  if (found === undefined) {
    const candidates = Object.entries(targetType.relations).filter(
      ([, r]) => r.collection && implementsType(registry, sourceTypeId, r.typeId),
    );
    const mostSpecific = candidates.filter(([, r]) =>
      candidates.every(([, o]) => implementsType(registry, r.typeId, o.typeId)),
    );
    found = mostSpecific.length === 1 ? mostSpecific[0]![0] : null;
    perRegistry.set(key, found);
  }
  return found ?? undefined;
}

const sourceTypesCache = new WeakMap<TypeRegistry, Map<string, readonly string[]>>();

/** The types whose resources linking to a `targetType` resource are members of its collection `relation`. */
function backwardSourceTypes(registry: TypeRegistry, targetType: RegistryType, relation: string): readonly string[] {
  let perRegistry = sourceTypesCache.get(registry);
  if (!perRegistry) sourceTypesCache.set(registry, (perRegistry = new Map()));
  const key = `${targetType.id}\n${relation}`;
  let types = perRegistry.get(key);
  if (!types)
    perRegistry.set(
      key,
      (types = [...registry.values()]
        .filter((t) => backwardCollection(registry, targetType, t.id) === relation)
        .map((t) => t.id)),
    );
  return types;
}

/**
 * SQL true on the members of relation `relation` of resource `id` (of `type`): the resources it
 * links to under that name and, for a collection, those linking to it that belong in it.
 */
export function relationMembers(registry: TypeRegistry, type: RegistryType, id: string, relation: string): SQL {
  const forward = sql`${resources.id} in (select l.target_id from links l where l.source_id = ${id} and l.relation = ${relation})`;
  const types = type.relations[relation]?.collection ? backwardSourceTypes(registry, type, relation) : [];
  if (!types.length) return forward;
  return sql`(${forward} or (${resources.typeId} in (${sql.join(
    types.map((t) => sql`${t}`),
    sql`, `,
  )}) and ${resources.id} in (select l.source_id from links l where l.target_id = ${id})))`;
}
