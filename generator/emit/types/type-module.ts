import {
  defaultPropertyAccess,
  type ApsModel,
  type Literal,
  type Operation,
  type Property,
  type Relation,
  type ResolvedType,
  type TypeRef,
} from "../../model/model.ts";
import { isBaseOperation } from "../../model/base-operations.ts";
import { enumMemberKeys, propertyKey } from "../core/naming.ts";
import { linkedToRoot } from "../../model/application-root.ts";
import type { CodeWriter } from "../core/code-writer.ts";
import type { ImportSet } from "../core/import-set.ts";
import { writeAssignment, writeProperty } from "../core/layout.ts";
import { stringLiteral } from "../core/string-literal.ts";
import { enumKey, type OperationNames, type TypeNames } from "../core/name-table.ts";
import { propertyDoc, tsdoc } from "./tsdoc.ts";
import { refTs, RUNTIME_TYPES } from "./type-refs.ts";

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

/** Which shape of a resource a field list is for (docs/aps/resources.md: readonly and final differ by shape). */
type Shape = "read" | "create" | "update";

/**
 * Writes the declarations of one type into its package's types module: its structures, enums
 * and the three shapes `X` (as read), `XCreate` (provision input: no readonly) and `XUpdate`
 * (configure input: no readonly, no final, all optional), for an application root type
 * `XSettings` (what installing an instance takes), and the params, reply and error types of the custom operations the type declares, under the
 * names of the name table (unique in the package). `null` on write means "no value"; it is
 * accepted for optional properties only. `root` is the application root type of the type's
 * package, if it has one. `imports` is the module's, which reserves every name it declares.
 */
export function writeTypeDeclarations(
  w: CodeWriter,
  type: ResolvedType,
  model: ApsModel,
  names: ReadonlyMap<string, TypeNames>,
  imports: ImportSet,
  root?: ResolvedType,
): void {
  const self = names.get(type.id)!;
  const enums: EnumView[] = [];
  const interfaces: InterfaceView[] = [];
  const enumNames = enumNamesOf(type, self);
  for (const [p, name] of enumNames) {
    const keys = enumMemberKeys(p.enum!);
    enums.push({
      doc: tsdoc([
        `Values of \`${p.name}\`${p.title ? ` (${p.title})` : ""}.`,
        p.enumTitles?.map((t, i) => `- \`${keys[i]}\`: ${t || "(no title)"}`).join("\n"),
      ]),
      typeDoc: `/** One of the values of {@link ${name}}. */`,
      name,
      members: p.enum!.map((l, i) => ({ key: keys[i]!, value: literalTs(l) })),
    });
  }

  const tsType = (p: Property | undefined, ref: TypeRef): string => {
    if (p && enumNames.has(p)) return enumNames.get(p)!;
    return refTs(ref, type, imports, names);
  };

  // Structures declared by this type, in declaration order.
  for (const s of type.decl.structures.values()) {
    const tsName = self.structures.get(s.name)!;
    interfaces.push({
      doc: tsdoc([s.description ?? `Structure \`${s.name}\` of ${type.name}.`]),
      name: tsName,
      fields: [...s.properties.values()].map((p) => ({
        doc: propertyDoc(p, "  "),
        line: `${propertyKey(p.name)}${p.required ? "" : "?"}: ${tsType(p, p.type)};`,
      })),
    });
  }

  const properties = [...type.properties.values()];
  const relations = [...type.relations.values()];
  const description = type.decl.description;

  const shapeFields = (shape: Shape): Field[] => {
    const fields: Field[] = [];
    if (shape === "read")
      fields.push({
        doc: "  /** The meta-section: id, type, status, revision. */\n",
        line: `readonly aps: ${imports.use(RUNTIME_TYPES, "ApsMeta")};`,
      });
    if (shape === "create")
      fields.push({
        doc: "  /** Type (and, for applications, id and status) of the new resource. */\n",
        line: `aps?: ${imports.use(RUNTIME_TYPES, "ApsCreateMeta")};`,
      });
    for (const p of properties) {
      if (shape !== "read" && p.readonly) continue;
      if (shape === "update" && p.final) continue;
      const t = tsType(p, p.type);
      const optional = shape === "read" ? !alwaysReadable(p) : shape === "update" || !p.required;
      const nullable = shape !== "read" && !p.required;
      fields.push({
        doc: propertyDoc(p, "  "),
        line: `${propertyKey(p.name)}${optional ? "?" : ""}: ${t}${nullable ? " | null" : ""};`,
      });
    }
    if (shape !== "update") for (const r of relations) fields.push(relationField(r, shape, imports, names, root));
    return fields;
  };

  interfaces.push({
    doc: tsdoc([
      description ?? `${withArticle(type.name, true)} resource as read from the controller.`,
      `Type id: \`${type.id}\`.`,
    ]),
    name: self.read,
    fields: shapeFields("read"),
  });
  if (self.create && self.update) {
    interfaces.push({
      doc: tsdoc([`What a client sends to provision ${withArticle(type.name)} (no read-only properties).`]),
      name: self.create,
      fields: shapeFields("create"),
    });
    interfaces.push({
      doc: tsdoc([
        `What a client sends to configure ${withArticle(type.name)}: every property optional, no read-only or final ones.`,
      ]),
      name: self.update,
      fields: shapeFields("update"),
    });
  }
  if (self.settings) {
    // The controller checks install settings as the application writes them (instance-lifecycle.ts:
    // validateCreate with the application actor): read-only properties may be given, and
    // required ones, read-only or not, must be. Links are not settings: installing makes none.
    const fields = properties.map((p) => ({
      doc: propertyDoc(p, "  "),
      line: `${propertyKey(p.name)}${p.required ? "" : "?"}: ${tsType(p, p.type)}${p.required ? "" : " | null"};`,
    }));
    interfaces.push({
      doc: tsdoc([
        `The settings of ${withArticle(type.name)} application instance: the properties of its root resource, sent when the instance is installed (POST /aps/2/instances).`,
      ]),
      name: self.settings,
      fields,
    });
  }

  w.line(`/** Type id of {@link ${self.read}}. */`);
  writeAssignment(w, `export const ${self.typeIdConst} =`, stringLiteral(type.id));
  w.line();
  for (const e of enums) {
    w.line(`${e.doc}export const ${e.name} = {`);
    w.indented(() => {
      for (const m of e.members) writeProperty(w, m.key, m.value);
    });
    w.line("} as const;").line(e.typeDoc);
    writeAssignment(w, `export type ${e.name} =`, `(typeof ${e.name})[keyof typeof ${e.name}]`);
    w.line();
  }
  for (const i of interfaces) {
    // A shape with nothing in it (an update of a type whose properties are all read-only or
    // final, a structure without properties) takes no member at all; an empty interface would
    // take any value but null and undefined.
    if (i.fields.length === 0) w.line(`${i.doc}export type ${i.name} = Record<string, never>;`);
    else {
      w.line(`${i.doc}export interface ${i.name} {`);
      for (const f of i.fields) w.line(`${f.doc}  ${f.line}`);
      w.line("}");
    }
    w.line();
  }
  for (const op of type.decl.operations.values()) {
    const own = self.operations.get(op.name);
    if (own && !isBaseOperation(op, type, model)) operationTypes(w, op, own, type, imports, names);
  }
}

/**
 * The types of a custom operation, declared once here and imported by the client, the connector
 * and the validators. Parameters are a type literal rather than an interface so that they fit
 * `Record<string, unknown>` (what the parameter parsers build). A body of declared non-JSON
 * content is `Data`: the connector and the parser see the bytes (`Uint8Array`), a client may send
 * a Blob or a string as well.
 */
function operationTypes(
  w: CodeWriter,
  op: Operation,
  own: OperationNames,
  type: ResolvedType,
  imports: ImportSet,
  names: ReadonlyMap<string, TypeNames>,
): void {
  const what = `${type.name}.${op.name} (${op.static ? "static " : ""}${op.verb} ${op.path})`;
  if (own.params) {
    const raw = op.parameters.some((p) => p.contentType !== undefined);
    w.line(`/** Parameters of ${what}. */`);
    w.block(
      `export type ${own.params}${raw ? "<Data = Uint8Array>" : ""} = {`,
      () => {
        for (const p of op.parameters) {
          const t = p.contentType !== undefined ? "Data" : p.type ? refTs(p.type, type, imports, names) : "string";
          if (p.description) w.line(`/** ${p.description.replace(/\*\//g, "*\\/").replace(/\s*\n\s*/g, " ")} */`);
          w.line(`${propertyKey(p.name)}${p.required ? "" : "?"}: ${t};`);
        }
      },
      "};",
    );
    w.line();
  }
  if (own.reply) {
    w.line(`/** What ${what} answers. */`);
    writeAssignment(w, `export type ${own.reply} =`, refTs(op.response!.type!, type, imports, names));
    w.line();
  }
  if (own.error) {
    w.line(`/** The error body ${what} declares. */`);
    writeAssignment(w, `export type ${own.error} =`, refTs(op.errorResponse!.type!, type, imports, names));
    w.line();
  }
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

/**
 * A relation in the read shape (a link) or in `XCreate` (a reference). A required relation is
 * required on provisioning, as the controller refuses a body without it (a 400), and a required
 * collection needs at least one link; except a link the controller makes itself, to the root
 * resource of the application serving the type (`root`, see linkedToRoot).
 */
function relationField(
  r: Relation,
  shape: Shape,
  imports: ImportSet,
  names: ReadonlyMap<string, TypeNames>,
  root: ResolvedType | undefined,
): Field {
  const target = names.get(r.typeId)?.tsName;
  const kind = r.collection ? (r.required ? "required collection" : "collection") : r.required ? "strong" : "weak";
  const byController = shape === "create" && r.required && linkedToRoot(r, root);
  const docText = `${r.description ? `${r.description} ` : ""}Relation: ${kind} link to ${target ? `\`${target}\` (${r.typeId})` : `\`${r.typeId}\``}.`;
  const doc = tsdoc(
    [byController ? `${docText} Left out, the controller links the application's root resource.` : docText],
    "  ",
  );
  if (shape === "read")
    return {
      doc,
      line: `${propertyKey(r.name)}?: ${imports.use(RUNTIME_TYPES, r.collection ? "ApsCollectionLink" : "ApsLink")};`,
    };
  const ref = imports.use(RUNTIME_TYPES, "ApsLinkRef");
  const required = r.required && !byController;
  if (r.collection)
    return {
      doc,
      line: `${propertyKey(r.name)}${required ? "" : "?"}: ${required ? `[${ref}, ...${ref}[]]` : `${ref}[]`};`,
    };
  return { doc, line: `${propertyKey(r.name)}${required ? "" : "?"}: ${ref};` };
}

/** Enum-valued properties and their declared names: those of the structures, then the type's own. */
function enumNamesOf(type: ResolvedType, self: TypeNames): Map<Property, string> {
  const out = new Map<Property, string>();
  const add = (key: string, p: Property) => {
    const name = self.enums.get(key);
    if (p.enum?.length && name !== undefined && !out.has(p)) out.set(p, name);
  };
  for (const s of type.decl.structures.values()) for (const p of s.properties.values()) add(enumKey(s.name, p.name), p);
  for (const p of type.properties.values()) add(enumKey(undefined, p.name), p);
  return out;
}

function literalTs(l: Literal): string {
  if (typeof l.value === "number" && /^-?\d+$/.test(l.raw)) {
    const big = BigInt(l.raw);
    return big > MAX_SAFE || big < -MAX_SAFE ? `${l.raw}n` : l.raw;
  }
  // Prettier writes an exponent without its plus sign (1e21).
  return typeof l.value === "string" ? stringLiteral(l.value) : JSON.stringify(l.value).replace("e+", "e");
}
