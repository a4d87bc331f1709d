import { defaultPropertyAccess, type ApsModel, type Literal, type Property, type Relation, type ResolvedType, type TypeRef } from "../../model/model.ts";
import { enumMemberKeys, enumTsName, propertyKey } from "../naming.ts";
import { typeBanner } from "../render.ts";
import type { TypeNames } from "./name-table.ts";
import { propertyDoc, tsdoc } from "./tsdoc.ts";
import { ImportSet, refTs, RUNTIME_TYPES } from "./type-refs.ts";

const MAX_SAFE = 9007199254740991n;

interface Field {
  doc: string;
  line: string;
}
interface InterfaceView {
  doc: string;
  name: string;
  fields: Field[];
}
interface EnumView {
  doc: string;
  typeDoc: string;
  name: string;
  members: { key: string; value: string }[];
}

/** The view model of one type's module, rendered by `templates/types/type-module.hbs`. */
export interface TypeModuleView {
  banner: string;
  imports: string[];
  tsName: string;
  typeIdDoc: string;
  typeIdLiteral: string;
  enums: EnumView[];
  interfaces: InterfaceView[];
}

/** Which shape of a resource a field list is for (SPEC 2.2: readonly and final differ by shape). */
type Shape = "read" | "create" | "update";

/**
 * Builds the module of one type: its structures, enums and the three shapes `X` (as read),
 * `XCreate` (provision input: no readonly) and `XUpdate` (configure input: no readonly, no final,
 * all optional). `null` on write means "no value"; it is accepted for optional properties only.
 */
export function typeModuleView(type: ResolvedType, model: ApsModel, names: ReadonlyMap<string, TypeNames>): TypeModuleView {
  const self = names.get(type.id)!;
  const imports = new ImportSet(self.modulePath, [self.tsName, `${self.tsName}Create`, `${self.tsName}Update`, `${self.tsName}TypeId`, ...self.structures.values()]);
  const enums: EnumView[] = [];
  const interfaces: InterfaceView[] = [];
  const enumNames = new Map<Property, string>();

  const registerEnum = (ownerName: string, p: Property) => {
    if (!p.enum?.length || enumNames.has(p)) return;
    const name = enumTsName(ownerName, p.name);
    enumNames.set(p, name);
    const keys = enumMemberKeys(p.enum);
    enums.push({
      doc: tsdoc([`Values of \`${p.name}\`${p.title ? ` (${p.title})` : ""}.`, p.enumTitles?.map((t, i) => `- \`${keys[i]}\`: ${t || "(no title)"}`).join("\n")]),
      typeDoc: `/** One of the values of {@link ${name}}. */`,
      name,
      members: p.enum.map((l, i) => ({ key: keys[i]!, value: literalTs(l) })),
    });
  };

  const tsType = (p: Property | undefined, ref: TypeRef): string => {
    if (p && enumNames.has(p)) return enumNames.get(p)!;
    return refTs(ref, type, imports, names);
  };

  // Structures declared by this type, in declaration order.
  for (const s of type.decl.structures.values()) {
    const tsName = self.structures.get(s.name)!;
    for (const p of s.properties.values()) registerEnum(tsName, p);
    interfaces.push({
      doc: tsdoc([s.description ?? `Structure \`${s.name}\` of ${type.name}.`]),
      name: tsName,
      fields: [...s.properties.values()].map((p) => ({ doc: propertyDoc(p, "  "), line: `${propertyKey(p.name)}${p.required ? "" : "?"}: ${tsType(p, p.type)};` })),
    });
  }

  const properties = [...type.properties.values()];
  for (const p of properties) registerEnum(self.tsName, p);
  const relations = [...type.relations.values()];
  const description = type.decl.description;

  const shapeFields = (shape: Shape): Field[] => {
    const fields: Field[] = [];
    if (shape === "read") fields.push({ doc: "  /** The meta-section: id, type, status, revision. */\n", line: `readonly aps: ${imports.use(RUNTIME_TYPES, "ApsMeta")};` });
    if (shape === "create") fields.push({ doc: "  /** Type (and, for applications, id and status) of the new resource. */\n", line: `aps?: ${imports.use(RUNTIME_TYPES, "ApsCreateMeta")};` });
    for (const p of properties) {
      if (shape !== "read" && p.readonly) continue;
      if (shape === "update" && p.final) continue;
      const t = tsType(p, p.type);
      const optional = shape === "read" ? !alwaysReadable(p) : shape === "update" || !p.required;
      const nullable = shape !== "read" && !p.required;
      fields.push({ doc: propertyDoc(p, "  "), line: `${propertyKey(p.name)}${optional ? "?" : ""}: ${t}${nullable ? " | null" : ""};` });
    }
    if (shape !== "update") for (const r of relations) fields.push(relationField(r, shape, imports, names));
    return fields;
  };

  interfaces.push({ doc: tsdoc([description ?? `${withArticle(type.name, true)} resource as read from the controller.`, `Type id: \`${type.id}\`.`]), name: self.tsName, fields: shapeFields("read") });
  if (type.isResource) {
    interfaces.push({ doc: tsdoc([`What a client sends to provision ${withArticle(type.name)} (no read-only properties).`]), name: `${self.tsName}Create`, fields: shapeFields("create") });
    interfaces.push({ doc: tsdoc([`What a client sends to configure ${withArticle(type.name)}: every property optional, no read-only or final ones.`]), name: `${self.tsName}Update`, fields: shapeFields("update") });
  }

  return {
    banner: typeBanner(model, type),
    imports: imports.render(),
    tsName: self.tsName,
    typeIdDoc: `/** Type id of {@link ${self.tsName}}. */`,
    typeIdLiteral: JSON.stringify(type.id),
    enums,
    interfaces,
  };
}

function withArticle(name: string, capital = false): string {
  const article = /^[aeiou]/i.test(name) ? "an" : "a";
  return `${capital ? article[0]!.toUpperCase() + article.slice(1) : article} \`${name}\``;
}

/** A property is always present when read only if it is required and every reader may see it. */
function alwaysReadable(p: Property): boolean {
  const access = { ...defaultPropertyAccess, ...p.access };
  return p.required && !p.encrypted && access.admin && access.owner;
}

function relationField(r: Relation, shape: Shape, imports: ImportSet, names: ReadonlyMap<string, TypeNames>): Field {
  const target = names.get(r.typeId)?.tsName;
  const kind = r.collection ? "collection" : r.required ? "strong" : "weak";
  const doc = tsdoc([`${r.description ? `${r.description} ` : ""}Relation: ${kind} link to ${target ? `\`${target}\` (${r.typeId})` : `\`${r.typeId}\``}.`], "  ");
  if (shape === "read") return { doc, line: `${propertyKey(r.name)}?: ${imports.use(RUNTIME_TYPES, r.collection ? "ApsCollectionLink" : "ApsLink")};` };
  const ref = imports.use(RUNTIME_TYPES, "ApsLinkRef");
  return { doc, line: `${propertyKey(r.name)}?: ${r.collection ? `${ref}[]` : ref};` };
}

function literalTs(l: Literal): string {
  if (typeof l.value === "number" && /^-?\d+$/.test(l.raw)) {
    const big = BigInt(l.raw);
    return big > MAX_SAFE || big < -MAX_SAFE ? `${l.raw}n` : l.raw;
  }
  return JSON.stringify(l.value);
}
