import { Codes } from "../diagnostics/codes.ts";
import type { DiagnosticSink } from "../diagnostics/diagnostic.ts";
import { Attributes, type AttributeSpec } from "../load/attributes.ts";
import {
  jsonTypeName,
  nodeLoc,
  nodeRange,
  nodeValue,
  objectMembers,
  rawText,
  type JsonDocument,
  type JsonNode,
} from "../load/json-document.ts";
import type { Loc, SourceFile } from "../load/source-file.ts";
import { isJsonMediaType } from "./json-media-type.ts";
import type {
  Access,
  Literal,
  Operation,
  Parameter,
  Property,
  Relation,
  ResponseDecl,
  Structure,
  TypeDeclaration,
  TypeRef,
  Verb,
} from "./model.ts";

/** Names of properties, relations, operations and structures (docs/aps/types.md section 1). Exported, with the attribute lists below, for the editor schema (generator/schema/). */
export const NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export const TYPE_ATTRIBUTES: AttributeSpec = {
  apsVersion: "any",
  name: "any",
  id: "any",
  implements: "any",
  description: "string",
  title: "string",
  access: "object",
  properties: "object",
  relations: "object",
  operations: "object",
  structures: "object",
};
export const PROPERTY_ATTRIBUTES: AttributeSpec = {
  type: "string",
  items: "object",
  description: "string",
  required: "boolean",
  readonly: "boolean",
  final: "boolean",
  encrypted: "boolean",
  unit: "string",
  default: "any",
  format: "string",
  pattern: "string",
  title: "string",
  headline: "boolean",
  minLength: "integer",
  maxLength: "integer",
  minItems: "integer",
  maxItems: "integer",
  uniqueItems: "boolean",
  enum: "array",
  enumTitles: "array",
  access: "object",
};
export const ITEMS_ATTRIBUTES: AttributeSpec = {
  type: "string",
  description: "string",
  title: "string",
  items: "object",
};
export const RELATION_ATTRIBUTES: AttributeSpec = {
  type: "string",
  required: "boolean",
  collection: "boolean",
  description: "string",
  title: "string",
  access: "object",
  assign: "object",
  backrel: "boolean",
  // `aps build` writes it from @allocate(new) (docs/aps/packages.md section 5).
  allocate: "string",
};
export const OPERATION_ATTRIBUTES: AttributeSpec = {
  name: "string",
  path: "string",
  verb: "string",
  response: "object",
  errorResponse: "object",
  parameters: "object",
  static: "boolean",
  access: "object",
  description: "string",
  summary: "string",
  eventSubscription: "object",
};
export const PARAMETER_ATTRIBUTES: AttributeSpec = {
  kind: "string",
  type: "string",
  contentType: "string",
  required: "boolean",
  description: "string",
  title: "string",
  items: "object",
};
export const RESPONSE_ATTRIBUTES: AttributeSpec = {
  type: "string",
  contentType: "string",
  items: "object",
  description: "string",
  title: "string",
  properties: "object",
};
export const STRUCTURE_ATTRIBUTES: AttributeSpec = {
  type: "string",
  properties: "object",
  description: "string",
  title: "string",
};
export const ACCESS_ROLES = new Set(["admin", "owner", "referrer", "public"]);
export const VERBS = new Set<Verb>(["GET", "POST", "PUT", "DELETE"]);
/** The attributes a property and a relation may carry, for editors' completion (aps-gen lsp). */
export const propertyAttributeNames: readonly string[] = Object.keys(PROPERTY_ATTRIBUTES);
export const relationAttributeNames: readonly string[] = Object.keys(RELATION_ATTRIBUTES);
const PRIMITIVES = new Set(["string", "number", "integer", "boolean", "object", "long"]);

/** Where a declaration came from, for the model's bookkeeping. */
export interface DeclarationOrigin {
  readonly packageName: string;
  readonly service?: string;
}

/**
 * Reads one declaration file into a TypeDeclaration, reporting every structural problem
 * (wrong JSON types, bad names, missing mandatory attributes). Semantic rules that need the
 * whole model (references, inheritance, routes) belong to the checker.
 * Returns undefined when the file cannot be a type at all (no usable id).
 */
export function readDeclaration(
  doc: JsonDocument,
  origin: DeclarationOrigin,
  sink: DiagnosticSink,
): TypeDeclaration | undefined {
  const { file, root } = doc;
  if (!root) return undefined;
  if (root.type !== "object") {
    sink.report(
      Codes.declarationNotObject,
      nodeRange(file, root),
      `a declaration must be a JSON object, not ${jsonTypeName(root)}.`,
    );
    return undefined;
  }
  const reader = new DeclarationReader(file, sink);
  return reader.readType(root, origin);
}

class DeclarationReader {
  constructor(
    private readonly file: SourceFile,
    private readonly sink: DiagnosticSink,
  ) {}

  readType(root: JsonNode, origin: DeclarationOrigin): TypeDeclaration | undefined {
    const file = this.file;
    const attrs = new Attributes(file, root, TYPE_ATTRIBUTES, this.sink, "type");
    const rootLoc = nodeLoc(file, root);

    const versionNode = attrs.node("apsVersion");
    if (!versionNode) {
      this.sink.report(Codes.apsVersion, rootLoc, `missing "apsVersion": add "apsVersion": "2.0".`);
    } else if (versionNode.value !== "2.0") {
      this.sink.report(
        Codes.apsVersion,
        nodeRange(file, versionNode),
        `"apsVersion" is ${rawText(file, versionNode)}; APS 2 declarations use the string "2.0".`,
      );
    }

    const idNode = attrs.node("id");
    if (!idNode || typeof idNode.value !== "string") {
      this.sink.report(
        Codes.typeIdInvalid,
        idNode ? nodeLoc(file, idNode) : rootLoc,
        idNode
          ? `type "id" must be a string URI, not ${jsonTypeName(idNode)}.`
          : `missing type "id": give a URI such as "http://vendor.example/types/widget/1.0".`,
      );
      return undefined;
    }
    const id = idNode.value;
    const idProblem = typeIdProblem(id);
    if (idProblem) this.sink.report(Codes.typeIdInvalid, nodeRange(file, idNode), `type id "${id}" ${idProblem}.`);

    const nameNode = attrs.node("name");
    let name = "";
    if (!nameNode || typeof nameNode.value !== "string") {
      this.sink.report(
        Codes.typeNameInvalid,
        nameNode ? nodeLoc(file, nameNode) : rootLoc,
        nameNode
          ? `type "name" must be a string, not ${jsonTypeName(nameNode)}.`
          : `missing type "name": give one word such as "Mailbox".`,
      );
      name = fallbackName(id);
    } else if (!NAME_PATTERN.test(nameNode.value)) {
      this.sink.report(
        Codes.typeNameInvalid,
        nodeRange(file, nameNode),
        `type name "${nameNode.value}" must be one word matching ^[a-zA-Z_][a-zA-Z0-9_]*$.`,
      );
      name = fallbackName(id);
    } else {
      name = nameNode.value;
    }

    const implementsList: { id: string; loc: Loc }[] = [];
    const implNode = attrs.node("implements");
    if (implNode) {
      if (implNode.type !== "array") {
        this.sink.report(
          Codes.implementsInvalid,
          nodeRange(file, implNode),
          `"implements" must be an array of type ids, e.g. ["http://aps-standard.org/types/core/resource/1.0"].`,
        );
      } else {
        for (const item of implNode.children ?? []) {
          if (item.type === "string") implementsList.push({ id: item.value as string, loc: nodeLoc(file, item) });
          else
            this.sink.report(
              Codes.implementsInvalid,
              nodeRange(file, item),
              `"implements" entries must be type id strings, not ${jsonTypeName(item)}.`,
            );
        }
      }
    }

    const structures = new Map<string, Structure>();
    for (const m of objectMembers(attrs.node("structures") ?? emptyObject)) {
      const s = this.readStructure(m.key, m.keyNode, m.value, id);
      if (s) structures.set(m.key, s);
    }
    const properties = this.readProperties(attrs.node("properties"), id);
    const relations = new Map<string, Relation>();
    for (const m of objectMembers(attrs.node("relations") ?? emptyObject)) {
      const r = this.readRelation(m.key, m.keyNode, m.value, id);
      if (r) relations.set(m.key, r);
    }
    const operations = new Map<string, Operation>();
    for (const m of objectMembers(attrs.node("operations") ?? emptyObject)) {
      const op = this.readOperation(m.key, m.keyNode, m.value, id);
      if (op) operations.set(m.key, op);
    }

    return {
      id,
      name,
      loc: nodeLoc(file, idNode),
      file: file.path,
      packageName: origin.packageName,
      ...(origin.service !== undefined && { service: origin.service }),
      implements: implementsList,
      ...optional("access", this.readAccess(attrs.node("access"), "type")),
      ...optional("description", attrs.string("description")),
      properties,
      relations,
      operations,
      structures,
    };
  }

  private readProperties(node: JsonNode | undefined, declaredIn: string): Map<string, Property> {
    const out = new Map<string, Property>();
    for (const m of objectMembers(node ?? emptyObject)) {
      const p = this.readProperty(m.key, m.keyNode, m.value, declaredIn);
      if (p) out.set(m.key, p);
    }
    return out;
  }

  private readProperty(name: string, keyNode: JsonNode, node: JsonNode, declaredIn: string): Property | undefined {
    const file = this.file;
    const loc = nodeLoc(file, keyNode);
    if (!NAME_PATTERN.test(name)) {
      this.sink.report(
        Codes.propertyNameInvalid,
        loc,
        `property name "${name}" must match ^[a-zA-Z_][a-zA-Z0-9_]*$ (one word, no spaces or dashes).`,
      );
    }
    if (node.type !== "object") {
      this.sink.report(
        Codes.attributeValueType,
        nodeRange(file, node),
        `property "${name}" must be an object of attributes, not ${jsonTypeName(node)}.`,
      );
      return undefined;
    }
    const what = `property "${name}"`;
    const a = new Attributes(file, node, PROPERTY_ATTRIBUTES, this.sink, what);
    const typeText = a.string("type");
    if (typeText === undefined) {
      this.sink.report(
        Codes.propertyTypeMissing,
        loc,
        `${what} has no "type"; it is the one mandatory attribute (e.g. "type": "string").`,
      );
      return undefined;
    }
    const type = this.readTypeExpression(typeText, a, what, "property");
    const literal = (n: JsonNode): Literal => ({ value: nodeValue(n), raw: rawText(file, n), loc: nodeLoc(file, n) });
    const defaultNode = a.node("default");
    const enumNode = a.node("enum");
    const titlesNode = a.node("enumTitles");
    let enumTitles: string[] | undefined;
    if (titlesNode) {
      enumTitles = [];
      for (const t of titlesNode.children ?? []) {
        if (t.type === "string") enumTitles.push(t.value as string);
        else
          this.sink.report(
            Codes.attributeValueType,
            nodeRange(file, t),
            `${what}: "enumTitles" entries must be strings, not ${jsonTypeName(t)}.`,
          );
      }
    }
    return {
      name,
      loc,
      declaredIn,
      type,
      typeText,
      required: a.boolean("required"),
      readonly: a.boolean("readonly"),
      final: a.boolean("final"),
      encrypted: a.boolean("encrypted"),
      headline: a.boolean("headline"),
      uniqueItems: a.boolean("uniqueItems"),
      ...optional("description", a.string("description")),
      ...optional("title", a.string("title")),
      ...optional("unit", a.string("unit")),
      ...optional("format", a.string("format")),
      ...optional("pattern", a.string("pattern")),
      ...optional("minLength", a.integer("minLength")),
      ...optional("maxLength", a.integer("maxLength")),
      ...optional("minItems", a.integer("minItems")),
      ...optional("maxItems", a.integer("maxItems")),
      ...optional("default", defaultNode && literal(defaultNode)),
      ...optional("enum", enumNode && (enumNode.children ?? []).map(literal)),
      ...optional("enumTitles", enumTitles),
      ...optional("access", this.readAccess(a.node("access"), what)),
      attrLocs: a.locs,
    };
  }

  /**
   * Reads a `type` attribute (plus `items` for arrays) into a TypeRef. Non-primitive names
   * stay unresolved until the whole model is known.
   */
  private readTypeExpression(
    text: string,
    a: Attributes,
    what: string,
    context: "property" | "parameter" | "response" | "items",
  ): TypeRef {
    const loc = a.locOf("type");
    if (text === "array") {
      const itemsNode = a.node("items");
      if (!itemsNode) {
        this.sink.report(
          Codes.arrayItemsMissing,
          loc,
          `${what} is an array but has no "items"; add "items": {"type": "string"} (or the element type).`,
        );
        return { kind: "array", items: { kind: "primitive", name: "string" } };
      }
      const items = new Attributes(this.file, itemsNode, ITEMS_ATTRIBUTES, this.sink, `${what} items`);
      const itemText = items.string("type");
      if (itemText === undefined) {
        this.sink.report(Codes.arrayItemsMissing, nodeRange(this.file, itemsNode), `${what}: "items" needs a "type".`);
        return { kind: "array", items: { kind: "primitive", name: "string" } };
      }
      if (itemText === "array") {
        this.sink.report(
          Codes.nestedArray,
          items.locOf("type"),
          `${what}: arrays cannot contain arrays; model the inner list as a structure or a separate type linked by a relation.`,
        );
        return { kind: "array", items: { kind: "primitive", name: "string" } };
      }
      return { kind: "array", items: this.readTypeExpression(itemText, items, `${what} items`, "items") };
    }
    if (a.has("items") && context !== "response") {
      this.sink.report(
        Codes.itemsNotArray,
        a.locOf("items"),
        `${what}: "items" is only allowed when "type" is "array" (type here is "${text}").`,
      );
    }
    if (text === "long" && context !== "parameter") {
      this.sink.report(
        Codes.typeUnknown,
        loc,
        `${what}: "long" is a parameter type; properties use "integer", which holds the full signed 64-bit range.`,
      );
      return { kind: "primitive", name: "integer" };
    }
    if (PRIMITIVES.has(text)) return { kind: "primitive", name: text as "string" };
    if (text === "self") return { kind: "self" };
    return { kind: "unresolved", text, loc };
  }

  private readRelation(name: string, keyNode: JsonNode, node: JsonNode, declaredIn: string): Relation | undefined {
    const loc = nodeLoc(this.file, keyNode);
    if (!NAME_PATTERN.test(name)) {
      this.sink.report(Codes.relationNameInvalid, loc, `relation name "${name}" must match ^[a-zA-Z_][a-zA-Z0-9_]*$.`);
    }
    if (node.type !== "object") {
      this.sink.report(
        Codes.attributeValueType,
        nodeRange(this.file, node),
        `relation "${name}" must be an object of attributes, not ${jsonTypeName(node)}.`,
      );
      return undefined;
    }
    const what = `relation "${name}"`;
    const a = new Attributes(this.file, node, RELATION_ATTRIBUTES, this.sink, what);
    const typeId = a.string("type");
    if (typeId === undefined) {
      this.sink.report(
        Codes.relationTypeMissing,
        loc,
        `${what} has no "type"; give the type id of the linked resources.`,
      );
      return undefined;
    }
    return {
      name,
      loc,
      declaredIn,
      typeId,
      required: a.boolean("required"),
      collection: a.boolean("collection"),
      ...optional("access", this.readAccess(a.node("access"), what)),
      ...optional("description", a.string("description")),
      attrLocs: a.locs,
    };
  }

  private readOperation(key: string, keyNode: JsonNode, node: JsonNode, declaredIn: string): Operation | undefined {
    const file = this.file;
    const loc = nodeLoc(file, keyNode);
    if (node.type !== "object") {
      this.sink.report(
        Codes.attributeValueType,
        nodeRange(file, node),
        `operation "${key}" must be an object of attributes, not ${jsonTypeName(node)}.`,
      );
      return undefined;
    }
    const what = `operation "${key}"`;
    const a = new Attributes(file, node, OPERATION_ATTRIBUTES, this.sink, what);
    const declaredName = a.string("name");
    if (!NAME_PATTERN.test(key)) {
      this.sink.report(
        Codes.operationNameMismatch,
        loc,
        `operation name "${key}" should match ^[a-zA-Z_][a-zA-Z0-9_]*$; generated code cannot name it.`,
      );
    } else if (declaredName !== undefined && declaredName !== key) {
      this.sink.report(
        Codes.operationNameMismatch,
        a.locOf("name"),
        `${what} declares "name": "${declaredName}"; the key is the name, so use the same word in both places.`,
      );
    }
    const verbText = a.string("verb");
    if (verbText === undefined || !VERBS.has(verbText as Verb)) {
      this.sink.report(
        Codes.operationVerbInvalid,
        verbText === undefined ? loc : a.locOf("verb"),
        verbText === undefined
          ? `${what} has no "verb"; use GET, POST, PUT or DELETE.`
          : `${what}: verb "${verbText}" is not one of GET, POST, PUT, DELETE (upper case).`,
      );
      return undefined;
    }
    const rawPath = a.string("path");
    if (rawPath === undefined) {
      this.sink.report(
        Codes.operationPathInvalid,
        loc,
        `${what} has no "path"; give one such as "/reset" (or "/" for the resource itself).`,
      );
      return undefined;
    }
    const parameters: Parameter[] = [];
    for (const m of objectMembers(a.node("parameters") ?? emptyObject)) {
      const p = this.readParameter(m.key, m.keyNode, m.value, what);
      if (p) parameters.push(p);
    }
    return {
      name: key,
      loc,
      declaredIn,
      verb: verbText as Verb,
      path: rawPath.startsWith("/") ? rawPath : `/${rawPath}`,
      static: a.boolean("static"),
      parameters,
      ...optional("response", this.readResponse(a.node("response"), `${what} response`)),
      ...optional("errorResponse", this.readResponse(a.node("errorResponse"), `${what} errorResponse`, false)),
      ...optional("access", this.readAccess(a.node("access"), what)),
      ...optional("description", a.string("description") ?? a.string("summary")),
      attrLocs: a.locs,
    };
  }

  private readParameter(name: string, keyNode: JsonNode, node: JsonNode, opWhat: string): Parameter | undefined {
    const file = this.file;
    const loc = nodeLoc(file, keyNode);
    const what = `${opWhat} parameter "${name}"`;
    if (node.type !== "object") {
      this.sink.report(
        Codes.attributeValueType,
        nodeRange(file, node),
        `${what} must be an object of attributes, not ${jsonTypeName(node)}.`,
      );
      return undefined;
    }
    const a = new Attributes(file, node, PARAMETER_ATTRIBUTES, this.sink, what);
    const kind = a.string("kind");
    if (kind !== "path" && kind !== "query" && kind !== "body") {
      this.sink.report(
        Codes.parameterKindInvalid,
        kind === undefined ? loc : a.locOf("kind"),
        kind === undefined
          ? `${what} has no "kind"; use "path", "query" or "body".`
          : `${what}: kind "${kind}" is not one of path, query, body.`,
      );
      return undefined;
    }
    const typeText = a.string("type");
    return {
      name,
      loc,
      kind,
      ...optional("type", typeText === undefined ? undefined : this.readTypeExpression(typeText, a, what, "parameter")),
      ...optional("typeText", typeText),
      ...contentTypeBeside(typeText, a.string("contentType")),
      required: a.boolean("required"),
      ...optional("description", a.string("description")),
      attrLocs: a.locs,
    };
  }

  /** Reads `response` (`success`) or `errorResponse`; only a success response folds a JSON contentType into its type (APS090 stays strict). */
  private readResponse(node: JsonNode | undefined, what: string, success = true): ResponseDecl | undefined {
    if (!node) return undefined;
    const a = new Attributes(this.file, node, RESPONSE_ATTRIBUTES, this.sink, what);
    const contentType = a.string("contentType");
    // `aps build` writes @return(string, text/plain) as a string type beside a text content type
    // (Mozy 2.0-1.8, two operations): the reply is that text, so it is read as the content type alone.
    const written = a.string("type");
    const typeText = success && contentType !== undefined && isTextReply(written, contentType) ? undefined : written;
    return {
      loc: nodeLoc(this.file, node),
      ...optional("type", typeText === undefined ? undefined : this.readTypeExpression(typeText, a, what, "response")),
      ...optional("typeText", typeText),
      ...(success ? contentTypeBeside(typeText, contentType) : optional("contentType", contentType)),
      ...optional("description", a.string("description")),
    };
  }

  private readStructure(name: string, keyNode: JsonNode, node: JsonNode, ownerTypeId: string): Structure | undefined {
    const loc = nodeLoc(this.file, keyNode);
    if (!NAME_PATTERN.test(name)) {
      this.sink.report(
        Codes.structureNameInvalid,
        loc,
        `structure name "${name}" must match ^[a-zA-Z_][a-zA-Z0-9_]*$.`,
      );
    }
    if (node.type !== "object") {
      this.sink.report(
        Codes.structureNotObject,
        nodeRange(this.file, node),
        `structure "${name}" must be an object schema {"type": "object", "properties": {...}}.`,
      );
      return undefined;
    }
    const a = new Attributes(this.file, node, STRUCTURE_ATTRIBUTES, this.sink, `structure "${name}"`);
    const type = a.string("type");
    if (type !== "object") {
      this.sink.report(
        Codes.structureNotObject,
        type === undefined ? loc : a.locOf("type"),
        `structure "${name}" must declare "type": "object"${type === undefined ? "" : ` (found "${type}")`}.`,
      );
    }
    return {
      name,
      loc,
      ownerTypeId,
      ...optional("description", a.string("description")),
      properties: this.readProperties(a.node("properties"), `${ownerTypeId}#${name}`),
    };
  }

  private readAccess(node: JsonNode | undefined, what: string): Access | undefined {
    if (!node) return undefined;
    const access: Access = {};
    for (const m of objectMembers(node)) {
      if (!ACCESS_ROLES.has(m.key)) {
        this.sink.report(
          Codes.accessInvalid,
          nodeRange(this.file, m.keyNode),
          `${what}: access role "${m.key}" is unknown; roles are admin, owner, referrer, public.`,
        );
      } else if (m.value.type !== "boolean") {
        this.sink.report(
          Codes.accessInvalid,
          nodeRange(this.file, m.value),
          `${what}: access "${m.key}" must be true or false, not ${jsonTypeName(m.value)}.`,
        );
      } else {
        access[m.key as keyof Access] = m.value.value as boolean;
      }
    }
    return access;
  }
}

const emptyObject: JsonNode = { type: "object", offset: 0, length: 0, children: [] };

/** Spreads `{[key]: value}` only when the value is defined, keeping optional fields absent. */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** Why a type id is malformed (docs/aps/types.md section 2), or undefined when it is fine. */
function typeIdProblem(id: string): string | undefined {
  if (!/^http:\/\/[^/\s:]+(\/[^/\s]+)*$/.test(id))
    return "must be an http:// URI without port, spaces or empty segments";
  const last = id.slice(id.lastIndexOf("/") + 1);
  if (!/^\d+(\.\d+)?$/.test(last)) return `must end with a version segment such as /1.0 (found "${last}")`;
  if (/(^|\.)0\d/.test(last)) return `version "${last}" has a leading zero`;
  return undefined;
}

function fallbackName(id: string): string {
  const parts = id.split("/").filter((s) => NAME_PATTERN.test(s));
  return parts.at(-1) ?? "Unnamed";
}

/**
 * A `string` beside `text/plain`: a bare text reply, which the type adds nothing to. Only this
 * pair has built evidence; a string beside another format (`text/csv`) stays APS089.
 */
function isTextReply(typeText: string | undefined, contentType: string): boolean {
  return typeText === "string" && contentType.split(";", 1)[0]!.trim().toLowerCase() === "text/plain";
}

/**
 * `contentType` as the model keeps it. Beside a `type`, a JSON media type (`text/json`, what
 * `aps build` writes for `@return(T, text/json)`) means the same as the type alone, so it becomes
 * `redundantContentType` and every emitter treats the value as JSON of the type; any other
 * content type beside a type stays `contentType`, which the checker reports as APS089.
 */
function contentTypeBeside(
  typeText: string | undefined,
  contentType: string | undefined,
): { contentType?: string; redundantContentType?: string } {
  if (contentType === undefined) return {};
  return typeText !== undefined && isJsonMediaType(contentType)
    ? { redundantContentType: contentType }
    : { contentType };
}
