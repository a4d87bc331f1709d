/**
 * What a link field's picker (link-picker.tsx) offers: resources of the link's target type that the
 * signed-in token can see, from `GET /aps/2/resources` with RQL (docs/aps/rql.md), each with a
 * label a person recognises it by. The value chosen is still the resource id, as a typed one is.
 */
import { rqlText } from "../../../runtime/client/rql.ts";
import type { ApsResource } from "../../../runtime/common/types.ts";
import { shortTypeId } from "../type-catalog.ts";

/** Candidates asked for at a time: a short list to choose from, not a browser of every resource. */
export const CANDIDATE_COUNT = 20;

/**
 * Properties that commonly name a resource (core account, user and contact types, and the usual
 * `name`/`title` of application types): typed text is looked for in them, and the first one a
 * candidate has a text value for labels it. A type without any is still found by id.
 */
export const NAME_PROPERTIES = ["name", "title", "displayName", "fullName", "login", "companyName"] as const;

/** Characters of a name shown in a label; the rest is cut (values may be kilobytes long). */
const LABEL_NAME_LENGTH = 80;

/** One resource to choose: its id (the value) and what it is called. */
export interface Candidate {
  readonly id: string;
  readonly label: string;
}

/**
 * The RQL for the candidates of `typeId` matching `typed`: resources implementing the type; when
 * text is typed, those whose id starts with it (ids are lowercase) or whose name-ish property holds
 * it (as typed: RQL's `like` is case-sensitive); only the name-ish properties selected; the first page.
 * Typed `*` and `?` are encoded, so they are characters to match, not wildcards.
 */
export function candidateQuery(typeId: string, typed: string): string {
  const text = typed.trim();
  const parts = [`implementing(${rqlText(typeId)})`];
  if (text) {
    const byId = `like(aps.id,${rqlText(text.toLowerCase())}*)`;
    const byName = NAME_PROPERTIES.map((p) => `like(${p},*${rqlText(text)}*)`);
    parts.push(`or(${[byId, ...byName].join(",")})`);
  }
  parts.push(`select(${NAME_PROPERTIES.join(",")})`, `limit(0,${CANDIDATE_COUNT})`);
  return parts.join("&");
}

/** The candidates of a list reply, labelled; items without an id are left out. */
export function candidatesOf(items: readonly ApsResource[]): Candidate[] {
  const out: Candidate[] = [];
  for (const item of items) {
    const id = item.aps?.id;
    if (typeof id === "string" && id) out.push({ id, label: candidateLabel(item) });
  }
  return out;
}

/** `<short type> · <name>` (`account/1.0 · Console Co`), or the short type alone when it has no name. */
export function candidateLabel(resource: ApsResource): string {
  const type = typeof resource.aps?.type === "string" ? shortTypeId(resource.aps.type) : "";
  const name = NAME_PROPERTIES.map((p) => resource[p]).find(
    (v): v is string => typeof v === "string" && v.trim() !== "",
  );
  // Cut by code point, so that no half of a surrogate pair is left at the end.
  const chars = name ? Array.from(name) : [];
  const shown = chars.length > LABEL_NAME_LENGTH ? `${chars.slice(0, LABEL_NAME_LENGTH).join("")}…` : name;
  return [type, shown].filter(Boolean).join(" · ");
}
