/**
 * The types the controller knows, as `/aps/2/types` gives them (load-types.ts reads them) (each its declaration, own members
 * only, `implements` naming its direct parents), and what follows from them together: a type's
 * ancestors, and its members with those it inherits, each marked with the type it comes from. A
 * type that declares a member of its parent's name replaces it whole (docs/aps/types.md).
 */
import type { TypeInfo } from "../../runtime/common/type-info.ts";
import { resolveDeclaration } from "./forms/declaration.ts";
import { valueText } from "./value-text.ts";

export type { TypeInfo } from "../../runtime/common/type-info.ts";

/** Every type, by id. */
export type TypeMap = ReadonlyMap<string, TypeInfo>;

/** The types `typeId` implements, directly or not, nearest first (breadth first), each once. */
export function ancestorsOf(types: TypeMap, typeId: string): string[] {
  const seen = new Set<string>([typeId]);
  const order: string[] = [];
  let level = [typeId];
  while (level.length > 0) {
    const next: string[] = [];
    for (const id of level) {
      for (const parent of types.get(id)?.implements ?? []) {
        if (seen.has(parent)) continue;
        seen.add(parent);
        order.push(parent);
        next.push(parent);
      }
    }
    level = next;
  }
  return order;
}

/** The types that implement `typeId` directly. */
export function childrenOf(types: TypeMap, typeId: string): TypeInfo[] {
  return [...types.values()].filter((t) => t.implements?.includes(typeId));
}

export type MemberKind = "property" | "relation" | "operation";

/** A property, relation or operation of a type, own or inherited. */
export interface Member {
  readonly kind: MemberKind;
  readonly name: string;
  /** The property's type, the relation's target type id, or the operation's verb and path. */
  readonly type: string;
  /** For a relation: the id of the type it links to (a page to link to). */
  readonly linksTo?: string;
  /** For a property of another type's structure (`<type id>#Name`, or an array of one): that type and the structure's name. */
  readonly structure?: { readonly typeId: string; readonly name: string; readonly array: boolean };
  /** Attributes worth a glance: required, readonly, encrypted, format, unit, default... */
  readonly attributes: readonly string[];
  /** The type it is inherited from; absent for the type's own members. */
  readonly from?: string;
  /** The declaration as written. */
  readonly declaration: Readonly<Record<string, unknown>>;
}

const SECTIONS: readonly [MemberKind, "properties" | "relations" | "operations"][] = [
  ["property", "properties"],
  ["relation", "relations"],
  ["operation", "operations"],
];

/**
 * The members of a type, its own first, then its ancestors' (nearest first). Which declaration of a name
 * counts is decided once for the whole console, as the compiler decides it
 * (forms/declaration.ts `resolveDeclaration`: the type's own, else the first parent's).
 */
export function membersOf(types: TypeMap, typeId: string): Member[] {
  if (!types.has(typeId)) return [];
  const resolved = resolveDeclaration(typeId, types);
  const members: Member[] = [];
  for (const [kind, section] of SECTIONS) {
    for (const { name, decl, from } of resolved[section].values()) {
      const declaration = (decl ?? {}) as Record<string, unknown>;
      members.push({ kind, name, ...describe(kind, declaration), declaration, ...(from === typeId ? {} : { from }) });
    }
  }
  // Own members first, then each ancestor's, nearest first; within one type, properties, relations, operations.
  const owners = [typeId, ...ancestorsOf(types, typeId)];
  const rank = (m: Member) =>
    owners.indexOf(m.from ?? typeId) * SECTIONS.length + SECTIONS.findIndex(([k]) => k === m.kind);
  return members
    .map((m, i) => ({ m, i }))
    .sort((a, b) => rank(a.m) - rank(b.m) || a.i - b.i)
    .map(({ m }) => m);
}

/** The properties of a type with the inherited ones (what a form for it has fields for). */
export function propertiesOf(types: TypeMap, typeId: string): Member[] {
  return membersOf(types, typeId).filter((m) => m.kind === "property");
}

function describe(
  kind: MemberKind,
  d: Readonly<Record<string, unknown>>,
): { type: string; linksTo?: string; structure?: Member["structure"]; attributes: string[] } {
  const flags = (names: readonly string[]) => names.filter((n) => d[n] === true);
  const text = valueText;
  if (kind === "relation") {
    const target = typeof d.type === "string" ? d.type : "";
    return { type: target, linksTo: target, attributes: flags(["required", "collection"]) };
  }
  if (kind === "operation") {
    const response = (d.response as { type?: unknown } | undefined)?.type;
    return {
      type: `${text(d.verb ?? "")} ${text(d.path ?? "")}`.trim(),
      attributes: [...flags(["static"]), ...(response ? [`returns ${text(response)}`] : []), ...access(d.access)],
    };
  }
  const items = (d.items as { type?: unknown } | undefined)?.type;
  const array = d.type === "array" && items !== undefined;
  const type = array ? `array of ${text(items)}` : text(d.type ?? "");
  const structure = structureOf(array ? items : d.type, array);
  return { type, ...(structure ? { structure } : {}), attributes: propertyAttributes(d) };
}

/** A property's attributes worth a glance: required, readonly, encrypted, format, limits, enum, access... */
export function propertyAttributes(d: Readonly<Record<string, unknown>>): string[] {
  const text = valueText;
  const attributes = ["required", "readonly", "final", "encrypted", "headline"].filter((n) => d[n] === true);
  for (const key of [
    "format",
    "unit",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
  ])
    if (d[key] !== undefined) attributes.push(`${key} ${text(d[key])}`);
  if (d.uniqueItems === true) attributes.push("unique items");
  if (d.default !== undefined) attributes.push(`default ${text(d.default)}`);
  if (Array.isArray(d.enum)) attributes.push(`one of ${d.enum.map(text).join(", ")}`);
  return [...attributes, ...access(d.access)];
}

/** `http://x/types/contact/1.2#Address` -> that type and `Address`; a structure of the type itself (`#Address` or a bare name) is not another type's. */
function structureOf(type: unknown, array: boolean): Member["structure"] {
  if (typeof type !== "string") return undefined;
  const hash = type.indexOf("#");
  if (hash <= 0 || !type.includes("://")) return undefined;
  return { typeId: type.slice(0, hash), name: type.slice(hash + 1), array };
}

/** An access object as "access: admin, owner" (the roles it grants). */
function access(value: unknown): string[] {
  if (!value || typeof value !== "object") return [];
  const granted = Object.entries(value)
    .filter(([, v]) => v === true)
    .map(([role]) => role);
  return [`access: ${granted.length ? granted.join(", ") : "none"}`];
}

/** The last part of a type id that says which type it is (`.../mailbox/1.0` -> `mailbox/1.0`), for tight spots. */
export function shortTypeId(id: string): string {
  const parts = id.split("/").filter(Boolean);
  return parts.length >= 2 ? parts.slice(-2).join("/") : id;
}
