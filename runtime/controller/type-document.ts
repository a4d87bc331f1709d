/**
 * A type as `GET /aps/2/types/{id}` shows it: its APS JSON declaration as written (`apsVersion`,
 * `name`, `id`, `implements`, `properties` with every attribute, `relations`, `operations`,
 * `structures`, `access` as an object), plus `aps.href` where it is served.
 *
 * Own members only, `implements` naming the direct parents, as the platform publishes types:
 * the Application type's schema lists only `upgrade` and says the other operations are inherited
 * from Resource (docs/aps/types.md), and a child redefines an inherited member whole or not at
 * all (docs/aps/types.md), so a type's document never repeats its parents. Clients that need an
 * inherited member read the parent named in `implements` (`GET /aps/2/types/{parent}`).
 */
import type { TypeInfo } from "../common/type-info.ts";
import type { RegistryType } from "./registry.ts";

/** Where a type's document is served; the id is percent-encoded so that its `//` survives any path tidying. */
export function typeHref(typeId: string): string {
  return `/aps/2/types/${encodeURIComponent(typeId)}`;
}

export function typeDocument(t: RegistryType): TypeInfo {
  const aps = { id: t.id, href: typeHref(t.id) };
  if (t.declaration) {
    // Only declarations without errors reach the registry, and those have their id, name and apsVersion.
    const { aps: _written, ...declared } = t.declaration as Omit<TypeInfo, "aps"> & { readonly aps?: unknown };
    return { aps, ...declared };
  }
  // A registry built without declarations (only tests build one by hand): the compiled view.
  return {
    aps,
    id: t.id,
    name: t.name,
    apsVersion: "2.0",
    implements: t.ancestors,
    properties: t.properties,
    relations: t.relations,
    operations: t.operations,
  };
}
