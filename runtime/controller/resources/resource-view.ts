/**
 * A stored resource as a caller sees it (docs/aps/resources.md, "The aps meta section", "Encrypted
 * properties", "The access object"): the `aps` section, the properties the caller may read
 * (encrypted ones only for applications), and links.
 */
import type { ApsCollectionLink, ApsLink, ApsMeta, ApsResource, LinkKind } from "../../common/types.ts";
import type { Caller } from "../auth/caller.ts";
import { RoleBit } from "../../common/actor.ts";
import { SERVING_APPLICATION } from "../auth/roles.ts";
import type { RegistryRelation, RegistryType } from "../registry.ts";
import type { StoredLink, StoredResource } from "../store/resource-store.ts";
import type { ResourceRows } from "../store/resource-rows.ts";

/** What the view needs to know about the reader. */
export interface Reader {
  /** Role bits on this resource. */
  readonly roles: number;
  /** The serving application: it reads every property, encrypted ones included, whatever their access. */
  readonly application: boolean;
  /** A caller with application credentials: it reads the encrypted properties its roles may access (docs/aps/resources.md, "Encrypted properties"). */
  readonly encrypted?: boolean;
  /**
   * An application that reaches the resource without serving it (auth/roles.ts: linked to its
   * resources, their account or subscription, or what it is provisioning): it also reads the
   * properties whose access leaves `referrer` unsaid, as the platform's application identity
   * reads the account and users it works for (FallBall reads the account's companyName and
   * techContact, connector/v1/resources/tenant.py:180-181). An explicit `referrer: false` hides
   * a property from it (docs/aps/platform-bodies.md §3).
   */
  readonly reaching?: boolean;
}

/**
 * How a caller reads a resource it holds `roles` on: the serving application reads everything
 * (docs/aps/security.md, "Applications as callers"); a caller with application credentials also
 * reads encrypted properties its roles give it access to; token callers never read them
 * (docs/aps/resources.md, "Encrypted properties").
 */
export function readerOf(caller: Caller, roles: number): Reader {
  const application = (roles & SERVING_APPLICATION) !== 0;
  const reaching = caller.kind === "application" && !application && (roles & RoleBit.referrer) !== 0;
  return { roles, application, ...(caller.instanceId ? { encrypted: true } : {}), ...(reaching ? { reaching } : {}) };
}

/** The full view of one resource for a caller holding `roles` on it: what single reads and writes answer. */
export function callerView(
  caller: Caller,
  row: StoredResource,
  type: RegistryType,
  roles: number,
  links: readonly StoredLink[],
  rows: ResourceRows,
): ApsResource {
  return resourceView(row, type, readerOf(caller, roles), { links, rows, full: true });
}

/** The JSON of a resource for one reader; `select` limits the properties (RQL `select`). */
export function resourceView(
  row: StoredResource,
  type: RegistryType | undefined,
  reader: Reader,
  options: { links?: readonly StoredLink[]; rows?: ResourceRows; select?: ReadonlySet<string>; full: boolean },
): ApsResource {
  const aps = apsMeta(row, options.full);
  const out: { aps: ApsMeta; [member: string]: unknown } = { aps };
  for (const [name, value] of Object.entries(row.body)) {
    if (options.select && !options.select.has(name)) continue;
    const p = type?.properties[name];
    if (p && (p.access & reader.roles) === 0 && !reader.application && !(reader.reaching && p.referrerUnsaid)) continue;
    out[name] = value;
  }
  if ((reader.application || reader.encrypted) && row.secrets && options.rows && type) {
    for (const [name, value] of Object.entries(options.rows.secrets(row))) {
      const p = type.properties[name];
      if (!reader.application && ((p?.access ?? 0) & reader.roles) === 0 && !(reader.reaching && p?.referrerUnsaid))
        continue;
      if (!options.select || options.select.has(name)) out[name] = value;
    }
  }
  if (options.links && type) {
    for (const [name, rel] of Object.entries(type.relations)) {
      if (options.select && !options.select.has(name)) continue;
      if (rel.collection)
        out[name] = {
          aps: { link: "collection", href: `${resourceHref(row.id)}/${name}` },
        } satisfies ApsCollectionLink;
      else {
        const link = options.links.find((l) => l.relation === name);
        if (link)
          out[name] = {
            aps: { link: rel.required ? "strong" : "weak", id: link.targetId, href: resourceHref(link.targetId) },
          } satisfies ApsLink;
      }
    }
  }
  return out;
}

/** The `aps` members of a row: a list shows the first five, a single read (`full`) all of them. */
export interface MetaFields {
  readonly id: string;
  readonly typeId: string;
  readonly status: string;
  readonly revision: number;
  readonly modified: string;
  readonly subscription?: string | null;
  readonly packageId?: string | null;
}

/** The `aps` section of a resource (also what calls to its application carry, application-body.ts). */
export function apsMeta(row: MetaFields, full: boolean): ApsMeta {
  return {
    id: row.id,
    type: row.typeId,
    status: row.status,
    revision: row.revision,
    modified: isoTime(row.modified),
    ...(full
      ? {
          ...(row.subscription ? { subscription: row.subscription } : {}),
          schema: `/aps/2/types/${encodeURIComponent(row.typeId)}`,
          ...(row.packageId ? { package: { id: row.packageId, href: `/aps/2/packages/${row.packageId}` } } : {}),
        }
      : {}),
  };
}

/** Where a resource is read. */
export function resourceHref(id: string): string {
  return `/aps/2/resources/${id}`;
}

/** How a relation links: a collection, or a strong (required) or weak singular link. */
export function linkKind(rel: RegistryRelation): LinkKind {
  return rel.collection ? "collection" : rel.required ? "strong" : "weak";
}

/** What linking answers (`POST .../{relation}`): the kind of link made and the resource linked, a collection's member too. */
export interface LinkAnswer {
  readonly aps: { readonly link: LinkKind; readonly id: string; readonly href: string };
}

export function linkAnswer(rel: RegistryRelation, targetId: string): LinkAnswer {
  return { aps: { link: linkKind(rel), id: targetId, href: resourceHref(targetId) } };
}

/** PostgreSQL's text of a UTC timestamp (`2026-11-27 10:51:23.123+00`), the common case, read without a Date. */
const PG_UTC = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.\d+)?\+00$/;

/** `2015-10-28T12:35:34Z` from what the drivers return (`2015-10-28 12:35:34.123+00`). */
function isoTime(text: string): string {
  const utc = PG_UTC.exec(text);
  if (utc) return `${utc[1]}T${utc[2]}Z`;
  const d = new Date(text.includes("T") ? text : text.replace(" ", "T").replace(/\+00$/, "Z"));
  return Number.isNaN(d.getTime()) ? text : d.toISOString().replace(/\.\d{3}Z$/, "Z");
}
