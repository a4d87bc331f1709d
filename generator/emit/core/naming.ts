import type { ResolvedType, Structure, TypeDeclaration } from "../../model/model.ts";

import { stringLiteral } from "./string-literal.ts";

/**
 * A name that may stand as a property key without quotes: an identifier name, Unicode letters
 * included, as Prettier decides when it takes quotes off a key (`"café": 1` -> `café: 1`).
 */
// biome-ignore lint/suspicious/noMisleadingCharacterClass: ZWNJ and ZWJ may continue an identifier name on their own (ECMAScript ID_Continue); no joined sequence is meant.
const IDENTIFIER_NAME = /^[$_\p{L}\p{Nl}][$_\u200c\u200d\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*$/u;

/** `subscriptionService` -> `SubscriptionService`, `isitup_domain` -> `IsitupDomain` (callers guard a leading digit). */
export function pascalCase(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/).filter(Boolean);
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
}

/** `subscriptionService` -> `subscription-service`: the file name of a type's modules. */
export function kebabCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/)
    .filter(Boolean)
    .map((w) => w.toLowerCase())
    .join("-");
}

/** A property key as written in TypeScript (and printed by Prettier): bare when it is an identifier name, quoted otherwise. */
export function propertyKey(name: string): string {
  return IDENTIFIER_NAME.test(name) ? name : stringLiteral(name);
}

/** The TypeScript name of a type's read shape (`Mailbox`); Create/Update add a suffix. */
export function typeTsName(decl: TypeDeclaration | ResolvedType): string {
  return pascalCase(decl.name);
}

/**
 * File names of every type, per package: the kebab-cased type name, plus the version when
 * two types of one package share a name (two versions side by side).
 */
export function moduleFileNames(types: readonly TypeDeclaration[]): Map<string, string> {
  const byBase = new Map<string, TypeDeclaration[]>();
  for (const t of types) {
    const base = kebabCase(t.name) || "type";
    byBase.set(base, [...(byBase.get(base) ?? []), t]);
  }
  const out = new Map<string, string>();
  for (const [base, group] of byBase) {
    for (const t of group) {
      const version = t.id.slice(t.id.lastIndexOf("/") + 1).replace(/\./g, "-");
      out.set(t.id, group.length === 1 ? base : `${base}-v${version}`);
    }
  }
  return out;
}

/** The name of a structure among its owner's names (`ownerTsName`: `Mailbox`); prefixed only if it would clash with them. */
export function structureTsName(ownerTsName: string, structure: Structure): string {
  const plain = pascalCase(structure.name);
  const typeName = ownerTsName;
  const taken = [typeName, `${typeName}Create`, `${typeName}Update`, `${typeName}TypeId`];
  return taken.includes(plain) ? `${typeName}${plain}` : plain;
}

/** The exported name of the enum of a property (`MailboxPlan`, `AddressCountry`). */
export function enumTsName(ownerTsName: string, propertyName: string): string {
  return `${ownerTsName}${pascalCase(propertyName)}`;
}

/** Keys for an `as const` enum object: readable, unique, valid identifiers. */
export function enumMemberKeys(values: readonly { readonly value: unknown; readonly raw: string }[]): string[] {
  const used = new Set<string>();
  return values.map(({ value, raw }) => {
    let key: string;
    if (typeof value === "string") key = value === "" ? "Empty" : pascalCase(value.replace(/[^A-Za-z0-9]+/g, " "));
    // The raw text keeps 64-bit integers exact: 9223372036854775807, not ...6000.
    else if (typeof value === "number") key = `V${raw.replace("-", "Minus").replace(/[.+]/g, "_")}`;
    else if (typeof value === "boolean") key = value ? "True" : "False";
    else key = "Value";
    if (key === "" || /^[0-9]/.test(key)) key = `V${key}`;
    return takeName(key, used);
  });
}

/** `name`, or the first of `name_2`, `name_3`... not in `taken`; the name returned is added to `taken`. */
export function takeName(name: string, taken: Set<string>): string {
  let unique = name;
  for (let n = 2; taken.has(unique); n++) unique = `${name}_${n}`;
  taken.add(unique);
  return unique;
}
