/**
 * Test oracle: one resolved APS type as a JSON Schema (draft-07, for ajv) that encodes the same
 * rules as the generated validators (docs/aps/resources.md) for one mode and one actor. It is written
 * from the rules, not from the validator generator, so the two can be compared on random input
 * (test/validators/differential.test.ts).
 *
 * What JSON Schema cannot say, and the oracle therefore does not check:
 * - integers beyond ±2^53: ajv sees JS numbers, so the signed 64-bit bounds are only exact
 *   within the safe range (the arbitraries stay inside it);
 * - the 4000-character limit on the JSON text of an array of structures (the APS limits);
 * - `bigint` values (never generated).
 */
import { Ajv, type CodeOptions, type Options } from "ajv";
import {
  defaultPropertyAccess,
  type ApsModel,
  type Literal,
  type Property,
  type ResolvedType,
  type Structure,
  type TypeRef,
} from "../../../generator/model/model.ts";

/** A JSON Schema: `true`/`false` or a schema object. */
export type Schema = boolean | { [keyword: string]: unknown };

/** Provision (create) or configure (update) body. */
export type OracleMode = "create" | "update";

/** The writer: a user holding the owner role (and public, as everyone), or the application. */
export type OracleActor = "owner" | "application";

/** APS limit: longest string value, in characters. */
const MAX_STRING = 4000;
/** APS limit: signed 64-bit bounds (as JS numbers they round to ±2^63, exact within ±2^53 only). */
// biome-ignore lint/correctness/noPrecisionLoss: the bounds as APS writes them; the comment above says what they round to.
const MIN_INT64 = -9223372036854775808;
// biome-ignore lint/correctness/noPrecisionLoss: as above.
const MAX_INT64 = 9223372036854775807;

/** What one property may do in one mode for one actor. */
export interface PropertyRule {
  /** The actor may send the key at all. */
  readonly allowed: boolean;
  /** The key must be present. */
  readonly required: boolean;
  /** `null` is accepted for the key (the property is not `required`). */
  readonly nullable: boolean;
}

/**
 * The rule for one top-level property (docs/aps/resources.md: attributes, access):
 * - a user (owner + public roles) may not send `readonly` properties, nor ones whose access
 *   (merged over the default) allows neither owner nor public, nor `final` ones on update;
 * - the application may send every property;
 * - on create, `required` must be present if the actor may send it, `default` or not (a default
 *   is a hint for clients; the platform types declare required members with one);
 * - `null` is accepted unless the property is `required`.
 */
export function propertyRule(p: Property, mode: OracleMode, actor: OracleActor): PropertyRule {
  let allowed = true;
  if (actor === "owner") {
    const access = { ...defaultPropertyAccess, ...p.access };
    if (p.readonly) allowed = false;
    if (!access.owner && !access.public) allowed = false;
    if (mode === "update" && p.final) allowed = false;
  }
  const required = mode === "create" && allowed && p.required;
  return { allowed, required, nullable: !p.required };
}

/** The APS limits cap every string at 4000 characters whatever `maxLength` says. */
export function effectiveMaxLength(maxLength: number | undefined): number {
  return Math.min(maxLength ?? MAX_STRING, MAX_STRING);
}

/**
 * A declared pattern as the validators run it: ECMA-262, unanchored search, with the `u` flag
 * when the expression compiles with it (and without when only the legacy syntax accepts it).
 */
export function compilePattern(pattern: string): RegExp {
  try {
    return new RegExp(pattern, "u");
  } catch {
    return new RegExp(pattern);
  }
}

type RegExpEngine = NonNullable<CodeOptions["regExp"]>;

/** ajv's regular-expression engine, set to {@link compilePattern}. */
const apsRegExp: RegExpEngine = Object.assign((pattern: string) => compilePattern(pattern), {
  code: "compilePattern",
});

/** A structure a TypeRef of kind "structure" names, looked up like the model does. */
export function resolveStructure(model: ApsModel, ref: { typeId: string; name: string }): Structure {
  const owner = model.types.get(ref.typeId);
  const s = owner?.decl.structures.get(ref.name) ?? owner?.structures.get(ref.name);
  if (!s) throw new Error(`oracle: structure ${ref.typeId}#${ref.name} is not in the model`);
  return s;
}

/** A literal's value as plain JSON (a `bigint` becomes the nearest number; only exact within ±2^53). */
export function literalJson(l: Literal): unknown {
  return toJson(l.value);
}

function toJson(v: unknown): unknown {
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map(toJson);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = toJson(x);
    return out;
  }
  return v;
}

/** `{aps: {id: "..."}}`: a link to another resource. Other keys are allowed at both levels. */
const LINK_REF: Schema = {
  type: "object",
  required: ["aps"],
  properties: {
    aps: { type: "object", required: ["id"], properties: { id: { type: "string" } } },
  },
};

/** The constraint attributes (docs/aps/resources.md) that shape a value. */
export interface ValueSpec {
  readonly type: TypeRef;
  readonly pattern?: string | undefined;
  readonly minLength?: number | undefined;
  readonly maxLength?: number | undefined;
  readonly minItems?: number | undefined;
  readonly maxItems?: number | undefined;
  readonly uniqueItems?: boolean | undefined;
  readonly enum?: readonly Literal[] | undefined;
}

/** Builds the schemas of one type; structures go to `definitions` once each, by a short key. */
class SchemaBuilder {
  readonly definitions: Record<string, Schema> = {};
  private readonly keys = new Map<string, string>();

  constructor(private readonly model: ApsModel) {}

  /** The schema of a value of a property or a structure member (null never included). */
  value(spec: ValueSpec): Schema {
    const s = this.bare(spec.type, spec);
    if (spec.enum === undefined) return notNull(s);
    const values = spec.enum.map(literalJson);
    if (typeof s !== "object") return { enum: values.filter((v) => v !== null) };
    // Keywords beside `$ref` are ignored by draft-07 readers: keep the enum apart.
    return s.$ref !== undefined ? { allOf: [s], enum: values } : { ...s, enum: values };
  }

  private bare(t: TypeRef, spec: ValueSpec | undefined): Schema {
    switch (t.kind) {
      case "primitive":
        switch (t.name) {
          case "string": {
            const s: Record<string, unknown> = { type: "string", maxLength: effectiveMaxLength(spec?.maxLength) };
            if (spec?.minLength !== undefined) s.minLength = spec.minLength;
            if (spec?.pattern !== undefined) s.pattern = spec.pattern;
            return s;
          }
          case "integer":
          case "long":
            return { type: "integer", minimum: MIN_INT64, maximum: MAX_INT64 };
          case "number":
            return { type: "number" };
          case "boolean":
            return { type: "boolean" };
          case "object":
            return { type: "object" };
        }
        return true;
      case "array": {
        const s: Record<string, unknown> = { type: "array", items: notNull(this.bare(t.items, undefined)) };
        if (spec?.minItems !== undefined) s.minItems = spec.minItems;
        if (spec?.maxItems !== undefined) s.maxItems = spec.maxItems;
        if (spec?.uniqueItems) s.uniqueItems = true;
        return s;
      }
      case "structure":
        return { $ref: `#/definitions/${this.structureKey(t)}` };
      case "resource":
      case "self":
        return LINK_REF;
      case "opaque":
      case "unresolved":
        return true;
    }
  }

  /** Structures: declared members only, required ones present, no member null (docs/aps/types.md section 6). */
  private structureKey(ref: { typeId: string; name: string }): string {
    const id = `${ref.typeId}#${ref.name}`;
    let key = this.keys.get(id);
    if (key !== undefined) return key;
    key = `s${this.keys.size}_${ref.name.replace(/[^A-Za-z0-9_]/g, "_")}`;
    this.keys.set(id, key);
    const s = resolveStructure(this.model, ref);
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const m of s.properties.values()) {
      properties[m.name] = this.value(m);
      if (m.required) required.push(m.name);
    }
    const schema: Record<string, unknown> = { type: "object", properties, additionalProperties: false };
    if (required.length > 0) schema.required = required;
    this.definitions[key] = schema;
    return key;
  }
}

/** `schema` that also accepts `null`. */
function orNull(schema: Schema): Schema {
  if (schema === true || schema === false) return true;
  if (typeof schema.type === "string") {
    const s: Record<string, unknown> = { ...schema, type: [schema.type, "null"] };
    if (Array.isArray(schema.enum)) s.enum = [...schema.enum, null];
    return s;
  }
  return { anyOf: [{ type: "null" }, schema] };
}

/** `schema` that rejects `null`. */
function notNull(schema: Schema): Schema {
  if (schema === true) return { not: { type: "null" } };
  return schema;
}

/**
 * The JSON Schema of a `mode` body of type `typeId` written by `actor`. The key `aps` accepts
 * anything (the controller checks it elsewhere).
 */
export function typeSchema(model: ApsModel, typeId: string, mode: OracleMode, actor: OracleActor): Schema {
  const type = model.types.get(typeId);
  if (!type) throw new Error(`oracle: type ${typeId} is not in the model`);
  return schemaOfType(model, type, mode, actor);
}

function schemaOfType(model: ApsModel, type: ResolvedType, mode: OracleMode, actor: OracleActor): Schema {
  const b = new SchemaBuilder(model);
  const properties: Record<string, Schema> = { aps: true };
  const required: string[] = [];
  if (mode === "create") {
    for (const r of type.relations.values()) {
      properties[r.name] = r.collection ? { type: "array", items: LINK_REF } : orNull(LINK_REF);
    }
  }
  for (const p of type.properties.values()) {
    const rule = propertyRule(p, mode, actor);
    if (!rule.allowed) {
      properties[p.name] = false;
      continue;
    }
    const v = b.value(p);
    properties[p.name] = rule.nullable ? orNull(v) : notNull(v);
    if (rule.required) required.push(p.name);
  }
  const schema: Record<string, unknown> = {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties,
    additionalProperties: false,
  };
  if (required.length > 0) schema.required = required;
  if (Object.keys(b.definitions).length > 0) schema.definitions = b.definitions;
  return schema;
}

/** ajv options the oracle is meant for: every error, own keys only, the APS regular expressions. */
const ORACLE_AJV_OPTIONS: Options = {
  allErrors: true,
  strict: false,
  ownProperties: true,
  code: { regExp: apsRegExp },
};

/** One ajv instance for many oracle schemas. */
export function oracleAjv(): Ajv {
  return new Ajv(ORACLE_AJV_OPTIONS);
}
