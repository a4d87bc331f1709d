import { Codes } from "../../diagnostics/codes.ts";
import type { DiagnosticSink } from "../../diagnostics/diagnostic.ts";
import type { Loc } from "../source-file.ts";
import { constantValue, NOT_CONSTANT, type ConstantScope, type ConstantValue } from "./constant-value.ts";
import type { DocTag } from "./doc-tags.ts";
import { object, put, scalar, type LocatedValue } from "./located-json.ts";
import type { PhpClass, PhpProperty } from "./php-program.ts";
import { firstTag, usableTags } from "./usable-tags.ts";

const PROPERTY_TAGS = new Set([
  "type",
  "link",
  "title",
  "description",
  "required",
  "readonly",
  "encrypted",
  "final",
  "headline",
  "unit",
  "format",
  "pattern",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "option",
  "access",
  "default",
  "allocate",
]);
const TEXT_TAGS = ["format", "pattern"] as const;
const LENGTH_TAGS = ["minLength", "maxLength", "minItems", "maxItems"] as const;
const ROLES = new Set(["admin", "owner", "referrer", "public"]);

/** What a property's annotations make: an entry of `properties`, of `relations`, or nothing. */
export type MemberDeclaration =
  | {
      readonly section: "properties";
      readonly name: string;
      readonly loc: Loc;
      readonly value: LocatedValue;
      readonly typeNames: readonly string[];
    }
  | { readonly section: "relations"; readonly name: string; readonly loc: Loc; readonly value: LocatedValue };

/**
 * Reads one PHP property the way `aps build` does (docs/aps/packages.md section 5):
 * `@link` makes a relation, `@type` a property, anything else nothing. Members come out in
 * the order `aps build` writes them.
 */
export function readPropertyAnnotations(
  prop: PhpProperty,
  owner: PhpClass,
  scope: ConstantScope,
  sink: DiagnosticSink,
): MemberDeclaration | undefined {
  const tags = usableTags(prop.doc, owner.file, sink, "property", PROPERTY_TAGS);
  const link = firstTag(tags, "link");
  const type = firstTag(tags, "type");
  if (link) return { section: "relations", name: prop.name, loc: link.loc, value: relation(link, tags, sink) };
  if (!type) {
    const stray = tags[0];
    if (stray)
      sink.report(
        Codes.phpAnnotationIgnored,
        stray.loc,
        `property $${prop.name} has APS annotations but no @type or @link, so "aps build" leaves it out; add @type(...) to declare it.`,
      );
    return undefined;
  }
  return property(prop, type, tags, scope, sink);
}

function relation(link: DocTag, tags: readonly DocTag[], sink: DiagnosticSink): LocatedValue {
  const out = object(link.loc);
  const target = link.args?.[0];
  const text = target?.text ?? "";
  const collection = text.endsWith("[]");
  put(out, "type", scalar(collection ? text.slice(0, -2) : text, target?.loc ?? link.loc), link.loc);
  const required = firstTag(tags, "required");
  if (required && flagValue(required)) put(out, "required", scalar(true, required.loc));
  // `aps build` always says whether a link is a collection, even when it is not.
  put(out, "collection", scalar(collection, target?.loc ?? link.loc), link.loc);
  const allocate = firstTag(tags, "allocate");
  if (allocate?.args?.[0]) put(out, "allocate", scalar(allocate.args[0].text, allocate.args[0].loc), allocate.loc);
  for (const t of tags) {
    if (t.name === "link" || t.name === "required" || t.name === "allocate") continue;
    sink.report(
      Codes.phpAnnotationIgnored,
      t.loc,
      `@${t.name} on a @link property is ignored by "aps build" (a relation has only type, required, collection and allocate here).`,
    );
  }
  return out;
}

function property(
  prop: PhpProperty,
  typeTag: DocTag,
  tags: readonly DocTag[],
  scope: ConstantScope,
  sink: DiagnosticSink,
): MemberDeclaration {
  const out = object(typeTag.loc);
  const typeArg = typeTag.args?.[0];
  const typeText = typeArg?.text ?? "";
  const typeLoc = typeArg?.loc ?? typeTag.loc;
  const typeNames: string[] = [];
  let itemType: string | undefined;
  if (typeText.endsWith("[]")) {
    itemType = typeText.slice(0, -2);
    typeNames.push(itemType);
    put(out, "type", scalar("array", typeLoc), typeTag.loc);
    const items = object(typeLoc);
    put(items, "type", scalar(itemType, typeLoc));
    put(out, "items", items, typeTag.loc);
  } else {
    typeNames.push(typeText);
    put(out, "type", scalar(typeText, typeLoc), typeTag.loc);
  }
  const flag = (name: string, key = name) => {
    const t = firstTag(tags, name);
    if (t && flagValue(t)) put(out, key, scalar(true, t.loc));
  };
  const text = (name: string) => {
    const t = firstTag(tags, name);
    const arg = t?.args?.[0];
    if (t && arg) put(out, name, scalar(arg.text, arg.loc), t.loc);
  };
  flag("readonly");
  flag("final");
  flag("required");
  flag("encrypted");
  for (const name of TEXT_TAGS) text(name);
  for (const name of LENGTH_TAGS) {
    const t = firstTag(tags, name);
    const arg = t?.args?.[0];
    if (!t || !arg) continue;
    const n = /^-?\d+$/.test(arg.text) ? Number(arg.text) : undefined;
    // A bound that is not a whole number is kept as written so the checker names it.
    put(out, name, scalar(n ?? arg.text, arg.loc), t.loc);
  }
  // The PHP initializer is the only source of "default" (@default is ignored by aps build).
  if (prop.initializer) {
    const value = constantValue(prop.initializer, scope);
    const loc = locOfInitializer(prop);
    if (value === NOT_CONSTANT) {
      sink.report(
        Codes.phpAnnotationIgnored,
        loc,
        `the initializer of $${prop.name} is not a constant aps-gen can work out, so no "default" is written; use a literal, an array or a constant.`,
      );
    } else if (value !== null) {
      put(out, "default", located(value, loc));
    }
  }
  const defaultTag = firstTag(tags, "default");
  if (defaultTag)
    sink.report(
      Codes.phpAnnotationIgnored,
      defaultTag.loc,
      `@default is ignored by "aps build"; the default of a property is its PHP initializer (public $${prop.name} = ...;).`,
    );
  text("title");
  text("description");
  flag("headline");
  text("unit");
  const access = accessObject(
    tags.filter((t) => t.name === "access"),
    sink,
  );
  if (access) put(out, "access", access);
  const options = tags.filter((t) => t.name === "option");
  if (options.length > 0) {
    const first = options[0]!;
    const values: LocatedValue[] = [];
    const titles: LocatedValue[] = [];
    for (const o of options) {
      const [v, title] = o.args ?? [];
      if (!v) {
        sink.report(Codes.phpAnnotationIgnored, o.loc, `@option() names no value; write @option("value", "Title").`);
        continue;
      }
      values.push(scalar(optionValue(v.text, v.quoted, itemType ?? typeText), v.loc));
      titles.push(scalar(title?.text ?? v.text, title?.loc ?? v.loc));
    }
    put(out, "enum", { kind: "array", items: values, loc: first.loc }, first.loc);
    put(out, "enumTitles", { kind: "array", items: titles, loc: first.loc }, first.loc);
  }
  return { section: "properties", name: prop.name, loc: typeTag.loc, value: out, typeNames };
}

/** `@access(role, bool)` tags, merged into one access object; undefined when there are none. */
export function accessObject(tags: readonly DocTag[], sink: DiagnosticSink): LocatedValue | undefined {
  if (tags.length === 0) return undefined;
  const out = object(tags[0]!.loc);
  for (const t of tags) {
    const [role, value] = t.args ?? [];
    if (!role || !ROLES.has(role.text)) {
      sink.report(
        Codes.phpAnnotationIgnored,
        t.loc,
        `@access needs a role (admin, owner, referrer or public) and true or false, e.g. @access(referrer, false); this one is ignored.`,
      );
      continue;
    }
    const allowed = value === undefined ? true : value.text.toLowerCase() !== "false";
    put(out, role.text, scalar(allowed, value?.loc ?? role.loc), role.loc);
  }
  return out.members.length > 0 ? out : undefined;
}

/** `@required`, `@readonly(true)`: a flag is on unless its argument says false. */
function flagValue(tag: DocTag): boolean {
  const arg = tag.args?.[0];
  return arg === undefined || arg.text.toLowerCase() !== "false";
}

/** Enum values are text in the annotation; an unquoted number or boolean of a matching type is not. */
function optionValue(text: string, quoted: boolean, type: string): string | number | boolean {
  if ((type === "integer" || type === "number") && /^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (type === "boolean" && !quoted && (text === "true" || text === "false")) return text === "true";
  return text;
}

function locOfInitializer(prop: PhpProperty): Loc {
  return prop.initializerLoc ?? prop.loc;
}

/** A constant value with every piece pointing at the initializer. */
function located(value: ConstantValue, loc: Loc): LocatedValue {
  if (Array.isArray(value)) return { kind: "array", items: value.map((v) => located(v, loc)), loc };
  if (value !== null && typeof value === "object") {
    const out = object(loc);
    for (const [k, v] of Object.entries(value)) put(out, k, located(v, loc), loc);
    return out;
  }
  return scalar(value, loc);
}
