/**
 * A configure body written as the resource was read (issue 16 item 9): UIs send back the whole
 * model (gcalendar `calendar.edit.js:143`, `xhr.put(..., getPlainValue(model))`), PHP
 * applications their whole object (SpamExperts `service.php:325`, `updateResource`), so the body
 * carries the `aps` section, links in their read form and values the caller may not change.
 *
 * What is the same as stored says nothing and is dropped: the `aps` members the controller keeps
 * (only `revision` is kept, for the optimistic check), links to the resource they link to now,
 * the read form of collections, and readonly or final values equal to the stored ones. What is
 * left are changes: properties (checked by the validators as any configure), and singular links
 * to change (a relink, or `null` to unlink). A changed `aps.type` or `aps.id`, and removing a
 * required link, are refused here with what to do instead.
 */
import { apsEqual } from "../../common/aps-equality.ts";
import { ControllerError } from "../support/errors.ts";
import type { RegistryType } from "../registry.ts";
import type { StoredLink, StoredResource } from "../store/resource-store.ts";

/** A singular link to change: to `targetId`, or removed (`null`). */
export interface LinkChangeRequest {
  readonly relation: string;
  readonly targetId: string | null;
}

/** The properties to configure and the links to change, from a body written as the resource was read. */
export function splitAsReadBody(
  type: RegistryType,
  row: StoredResource,
  links: readonly StoredLink[],
  body: unknown,
): { properties: unknown; relinks: LinkChangeRequest[] } {
  // Not an object: the validators say so.
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { properties: body, relinks: [] };
  const properties: Record<string, unknown> = {};
  const relinks: LinkChangeRequest[] = [];
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (name === "aps") {
      const revision = metaSection(value, type, row);
      if (revision !== undefined) properties.aps = { revision };
      continue;
    }
    const rel = name in type.properties ? undefined : type.relations[name];
    if (rel) {
      const current = links.find((l) => l.relation === name)?.targetId;
      if (rel.collection) {
        // Its read form names no member; the members change through the collection's URL.
        if (isCollectionReadForm(value)) continue;
      } else if (value === null) {
        if (current === undefined) continue;
        if (rel.required)
          throw new ControllerError(
            409,
            `"${name}" is a required relation: the resource cannot be without it. Relink it to another resource ("${name}": {"aps": {"id": "<resource id>"}}), or unprovision the resource.`,
          );
        relinks.push({ relation: name, targetId: null });
        continue;
      } else {
        const targetId = (value as { aps?: { id?: unknown } } | undefined)?.aps?.id;
        if (typeof targetId === "string") {
          if (targetId !== current) relinks.push({ relation: name, targetId });
          continue;
        }
      }
      // Anything else: the validators point at the link endpoints.
      properties[name] = value;
      continue;
    }
    const p = type.properties[name];
    // An unchanged value of what the caller may not change says nothing (absent and null are both "no value").
    if (p && (p.readonly || p.final) && apsEqual(value ?? null, row.body[name] ?? null)) continue;
    properties[name] = value;
  }
  return { properties, relinks };
}

/** Checks the `aps` section against the resource and returns the revision it names, if any. */
function metaSection(value: unknown, type: RegistryType, row: StoredResource): unknown {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value))
    throw new ControllerError(
      400,
      'aps is the meta-section of the resource: an object such as {"revision": 3}, or leave it out.',
    );
  const aps = value as Record<string, unknown>;
  if (aps.id !== undefined && aps.id !== row.id)
    throw new ControllerError(
      400,
      `aps.id is ${JSON.stringify(aps.id)}, but this is resource ${row.id}; a configure cannot change a resource's id.`,
    );
  if (aps.type !== undefined && aps.type !== row.typeId) {
    throw new ControllerError(
      409,
      `aps.type is ${JSON.stringify(aps.type)}, but this resource is a ${row.typeId} (${type.name}); a configure cannot change a resource's type. Keep aps.type as read (or leave it out); to move to another type, provision a resource of it.`,
    );
  }
  return aps.revision;
}

/** `{"aps": {"link": "collection", "href": ...}}`, what a read shows for a collection relation. */
function isCollectionReadForm(value: unknown): boolean {
  const aps = (value as { aps?: { link?: unknown } } | null | undefined)?.aps;
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 1 &&
    typeof aps === "object" &&
    aps !== null &&
    aps.link === "collection"
  );
}
