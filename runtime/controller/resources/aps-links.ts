/**
 * Links carried in `aps.links` of a provisioning body (docs/platform-forms.md §4 Q11, table row
 * 26): PHP applications add `\APS\Link` objects there before `linkResource` or
 * `provisionResource` (SpamExperts `context.php:926-931`). An application that fills one in by
 * hand (a Mozy connector on GitHub, adrpapa/Embratel-VDN) shows its members: `id` (the linked
 * resource), `href`, `link` (`strong`/`weak`) and `name` (the relation). Each entry becomes the
 * relation member it stands for, `"<name>": {"aps": {"id"}}` (appended for a collection); a
 * member the body names itself wins. An entry without a `name` and `id`, or naming no relation of
 * the type, is a 400.
 */
import { linkRef } from "../../common/link-ref.ts";
import { ControllerError } from "../support/errors.ts";
import type { RegistryType } from "../registry.ts";

/** `body` with the links of `aps.links` as relation members; the body itself when it has none. */
export function withApsLinks(type: RegistryType, body: Record<string, unknown>): Record<string, unknown> {
  const links = (body.aps as { links?: unknown } | undefined)?.links;
  if (links === undefined || links === null) return body;
  const entries = Array.isArray(links) ? links : typeof links === "object" ? Object.values(links) : undefined;
  if (!entries)
    throw new ControllerError(400, 'aps.links is a list of links, each {"name": "<relation>", "id": "<resource id>"}.');
  const out: Record<string, unknown> = { ...body };
  const given = new Set(Object.keys(body));
  entries.forEach((entry, i) => {
    const { name, id } = (entry ?? {}) as { name?: unknown; id?: unknown };
    if (typeof name !== "string" || typeof id !== "string")
      throw new ControllerError(
        400,
        `aps.links[${i}] needs "name" (the relation) and "id" (the resource to link), as \\APS\\Link sets them.`,
      );
    const rel = type.relations[name];
    if (!rel)
      throw new ControllerError(
        400,
        `aps.links[${i}] names "${name}", which is not a relation of ${type.name}${Object.keys(type.relations).length ? `; it has ${Object.keys(type.relations).join(", ")}` : ""}.`,
      );
    if (given.has(name)) return;
    const ref = linkRef(id);
    out[name] = rel.collection ? [...((out[name] as unknown[] | undefined) ?? []), ref] : ref;
  });
  return out;
}
