/**
 * JSON Schema (OpenAPI 3.1 dialect) of APS properties and structures, for the OpenAPI document:
 * what a client needs to read and write bodies, not every rule the validators check (64-bit
 * bounds and the 4000-character JSON limit stay with the validators).
 */
import { parseJsonText } from "../../../runtime/common/json-text.ts";
import type { Literal, Property, ResolvedType, TypeRef } from "../../model/model.ts";
import { BaseSchemaNames, type SchemaNames } from "./schema-names.ts";

/** A JSON Schema object. */
export type Schema = Record<string, unknown>;

/** A reference to `#/components/schemas/<name>`. */
export function schemaRef(name: string): Schema {
  return { $ref: `#/components/schemas/${name}` };
}

/** The schema of a type reference. */
export function refSchema(ref: TypeRef, names: SchemaNames): Schema {
  switch (ref.kind) {
    case "primitive":
      if (ref.name === "integer" || ref.name === "long") return { type: "integer", format: "int64" };
      return { type: ref.name === "object" ? "object" : ref.name };
    case "array":
      return { type: "array", items: refSchema(ref.items, names) };
    case "structure": {
      const name = names.structure(ref.typeId, ref.name);
      return name ? schemaRef(name) : { type: "object" };
    }
    case "resource":
    case "self":
      return schemaRef(BaseSchemaNames.linkRef);
    default:
      return {};
  }
}

/** The schema of one property. */
function propertySchema(p: Property, names: SchemaNames): Schema {
  const s: Schema = { ...refSchema(p.type, names) };
  if (p.description ?? p.title) s.description = p.description ?? p.title;
  if (p.format) s.format = p.format;
  if (p.pattern) s.pattern = p.pattern;
  if (p.minLength !== undefined) s.minLength = p.minLength;
  if (p.maxLength !== undefined) s.maxLength = p.maxLength;
  if (p.minItems !== undefined) s.minItems = p.minItems;
  if (p.maxItems !== undefined) s.maxItems = p.maxItems;
  if (p.uniqueItems) s.uniqueItems = true;
  if (p.enum) s.enum = p.enum.map(exact);
  if (p.default) s.default = exact(p.default);
  if (p.readonly) s.readOnly = true;
  if (p.encrypted) s.writeOnly = true;
  return s;
}

/** A literal's value read from its source text: a 64-bit integer beyond 2^53 stays exact, as a bigint. */
function exact(literal: Literal): unknown {
  return parseJsonText(literal.raw);
}

/** An object schema of properties; `required` names those to list as required. */
export function objectSchema(
  props: Iterable<Property>,
  names: SchemaNames,
  options: { required: (p: Property) => boolean; description?: string; extra?: Record<string, Schema> },
): Schema {
  const properties: Record<string, Schema> = { ...options.extra };
  const required: string[] = [];
  for (const p of props) {
    properties[p.name] = propertySchema(p, names);
    if (options.required(p)) required.push(p.name);
  }
  return {
    type: "object",
    ...(options.description ? { description: options.description } : {}),
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

/** The three shapes of a resource type (`X`, `XCreate`, `XUpdate`): as read, provision input, configure input. */
export function resourceSchemas(
  type: ResolvedType,
  names: SchemaNames,
): { read: Schema; create: Schema; update: Schema } {
  const props = [...type.properties.values()];
  const links = (write: boolean): Record<string, Schema> =>
    Object.fromEntries(
      [...type.relations.values()].map((r) => [
        r.name,
        r.collection
          ? write
            ? { type: "array", items: schemaRef(BaseSchemaNames.linkRef) }
            : schemaRef(BaseSchemaNames.link)
          : schemaRef(write ? BaseSchemaNames.linkRef : BaseSchemaNames.link),
      ]),
    );
  const read = objectSchema(
    props.filter((p) => !p.encrypted),
    names,
    {
      required: () => false,
      ...(type.decl.description ? { description: type.decl.description } : {}),
      extra: { aps: schemaRef(BaseSchemaNames.meta), ...links(false) },
    },
  );
  const create = objectSchema(
    props.filter((p) => !p.readonly),
    names,
    {
      // A default is a hint for the client preparing the body (docs/aps/resources.md): required is required.
      required: (p) => p.required,
      description: `Provision input of ${type.name}.`,
      extra: { aps: { type: "object", properties: { type: { const: type.id } }, required: ["type"] }, ...links(true) },
    },
  );
  (create.required as string[] | undefined)?.unshift("aps");
  if (!create.required) create.required = ["aps"];
  const update = objectSchema(
    props.filter((p) => !p.readonly && !p.final),
    names,
    {
      required: () => false,
      description: `Configure input of ${type.name}: only what changes.`,
      extra: { aps: { type: "object", properties: { revision: { type: "integer" } } } },
    },
  );
  return { read, create, update };
}
