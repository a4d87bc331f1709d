/**
 * The form of a provision, configure or custom-operation call, compiled from the type's
 * declaration (declaration.ts): one field per property (or relation, or parameter), its input
 * chosen by type, format and enum, its limits kept so that validate-form.ts can check a value
 * before it is sent (docs/aps/resources.md, "Property attributes").
 *
 * Each field's place in the body is a JSON pointer built from the keys on the way down, the same
 * pointers the controller's errors carry, so an error from either side lands on its field.
 */
import { jsonText } from "../../../runtime/client/json.ts";
import {
  customOperations,
  findStructure,
  type Declared,
  type OperationDecl,
  type ResolvedDecl,
  type ValueDecl,
} from "./declaration.ts";

/** What the user types into: an input element's shape, not the JSON type. */
type InputKind =
  /** A text box; `format` says which (email, url, date...) when it helps the browser's keyboard. */
  | "text"
  /** An encrypted property: a password box, never pre-filled. */
  | "secret"
  | "integer"
  | "number"
  /**
   * A choice of true or false, unset at first: a checkbox cannot say "not given", and a required
   * boolean in an optional structure would otherwise always send the structure.
   */
  | "boolean"
  /** One of the declared `enum` values. */
  | "select"
  /** Text of several lines (a PEM certificate, say). */
  | "multiline"
  /** JSON text, for `object` values and types the console cannot see. */
  | "json"
  /** A resource id, sent as `{"aps": {"id": ...}}`. */
  | "link"
  /** A fieldset of member fields. */
  | "structure"
  /** A list of item fields with add and remove. */
  | "array";

interface EnumOption {
  readonly value: unknown;
  readonly title: string;
}

/** One field of a form. */
export interface FieldSpec {
  /** The body key (or array index placeholder) the value goes under; the segment of its pointer. */
  readonly key: string;
  /** The accessible name: the property, relation or parameter name as declared. */
  readonly label: string;
  readonly input: InputKind;
  /** The JSON type the value must have: string, integer, number, boolean, object, array, structure, link, any. */
  readonly valueType: "string" | "integer" | "number" | "boolean" | "object" | "array" | "structure" | "link" | "any";
  readonly required: boolean;
  /** False for a readonly (or, on configure, final) property: shown, not sent. */
  readonly editable: boolean;
  readonly description?: string;
  readonly format?: string;
  readonly unit?: string;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  readonly options?: readonly EnumOption[];
  readonly defaultValue?: unknown;
  /** Members of a structure. */
  readonly fields?: readonly FieldSpec[];
  /** The item of an array (its key is unused: items are keyed by index). */
  readonly item?: FieldSpec;
  /** Name of the structure a `structure` field holds, for messages. */
  readonly structure?: string;
  /**
   * A link's target type: the relation's `type`, the type id a property is declared with, or the
   * form's own type for `self`. The picker (link-picker.tsx) offers resources implementing it.
   */
  readonly linkType?: string;
  /** Path and query parameters arrive as text and are converted by the controller (`string` when none is declared). */
  readonly parameterType?: string;
}

/** A compiled form: its fields, and how a filled-in form becomes what is sent. */
export interface FormModel {
  readonly mode: "provision" | "configure" | "operation";
  readonly fields: readonly FieldSpec[];
  /** Configure: nothing is required at the top (a partial update); provision and operations: required fields are. */
  readonly topRequired: boolean;
}

/** A provision form: every property the user may set (readonly ones the application sets are left out) and every relation. */
export function provisionForm(type: ResolvedDecl): FormModel {
  const fields: FieldSpec[] = [];
  for (const p of type.properties.values()) {
    if (p.decl.readonly) continue;
    fields.push(propertyField(type, p.name, p.decl, "provision"));
  }
  for (const r of type.relations.values()) {
    if (type.properties.has(r.name)) continue;
    const link: FieldSpec = {
      key: r.name,
      label: r.name,
      input: "link",
      valueType: "link",
      linkType: r.decl.type,
      required: !!r.decl.required,
      editable: true,
      ...describe(r.decl.description, `a ${r.decl.type} resource id`),
    };
    fields.push(
      r.decl.collection
        ? {
            key: r.name,
            label: r.name,
            input: "array",
            valueType: "array",
            required: !!r.decl.required,
            editable: true,
            item: { ...link, key: "", required: true },
            ...describe(r.decl.description),
          }
        : link,
    );
  }
  return { mode: "provision", fields, topRequired: true };
}

/** A configure form: every property, readonly and final ones shown but not editable; relations change through their links, not here. */
export function configureForm(type: ResolvedDecl): FormModel {
  const fields = [...type.properties.values()].map((p) => propertyField(type, p.name, p.decl, "configure"));
  return { mode: "configure", fields, topRequired: false };
}

/**
 * The settings of an application root resource, as installing an instance takes them: the
 * controller checks them as the application would write them (it sets the root resource up), so
 * readonly properties may be given too; relations are not part of the settings.
 */
export function settingsForm(type: ResolvedDecl): FormModel {
  const fields = [...type.properties.values()].map((p) => valueField(type, p.name, p.decl, "provision"));
  return { mode: "provision", fields, topRequired: true };
}

/**
 * The form of a custom operation: path parameters under `path`, query parameters under `query`
 * and the body parameter as `body`, the pointers the controller's parameter errors use
 * (`/path/<name>`, `/query/<name>`, `/body/...`).
 */
export function operationForm(type: ResolvedDecl, operation: string): FormModel {
  const op = customOperations(type).find((o) => o.name === operation);
  if (!op) throw new Error(`${type.name} has no custom operation ${operation}.`);
  return { mode: "operation", fields: operationFields(type, op), topRequired: true };
}

function operationFields(type: ResolvedDecl, op: Declared<OperationDecl>): FieldSpec[] {
  const groups: Record<"path" | "query", FieldSpec[]> = { path: [], query: [] };
  let body: FieldSpec | undefined;
  for (const [name, p] of Object.entries(op.decl.parameters ?? {})) {
    const kind = p.kind ?? "query";
    if (kind === "body") {
      // Declared non-JSON content is sent as typed.
      body =
        p.contentType && !/json/i.test(p.contentType)
          ? { key: "body", label: name, input: "text", valueType: "string", required: !!p.required, editable: true }
          : { ...valueField(type, "body", p, "operation"), label: name };
      continue;
    }
    const primitive = p.type === "long" ? "integer" : p.type;
    const field = valueField(type, name, { ...p, type: primitive }, "operation");
    // A parameter is text in the URL: only scalars; anything else is typed as text.
    const scalar =
      field.input === "structure" || field.input === "array" || field.input === "json" || field.input === "link"
        ? { ...field, input: "text" as const, valueType: "string" as const }
        : field;
    groups[kind === "path" ? "path" : "query"].push({
      ...scalar,
      parameterType: p.type ?? "string",
      required: kind === "path" || !!p.required,
    });
  }
  const out: FieldSpec[] = [];
  for (const kind of ["path", "query"] as const) {
    if (groups[kind].length)
      out.push({
        key: kind,
        label: `${kind} parameters`,
        input: "structure",
        valueType: "structure",
        required: true,
        editable: true,
        fields: groups[kind],
      });
  }
  if (body) out.push(body);
  return out;
}

function propertyField(type: ResolvedDecl, name: string, p: ValueDecl, mode: FormModel["mode"]): FieldSpec {
  const field = valueField(type, name, p, mode);
  const editable = !p.readonly && !(mode === "configure" && p.final);
  return editable ? field : { ...field, editable: false };
}

/** A field for a value declared by `p` (a property, structure member, array items or parameter). */
function valueField(
  type: ResolvedDecl,
  key: string,
  p: ValueDecl,
  mode: FormModel["mode"],
  seen: ReadonlySet<string> = new Set(),
): FieldSpec {
  const base = {
    key,
    label: key,
    required: !!p.required,
    editable: true,
    ...describe(p.title && p.description ? `${p.title}: ${p.description}` : (p.description ?? p.title)),
    ...(p.format ? { format: p.format } : {}),
    ...(p.unit ? { unit: p.unit } : {}),
    ...(p.default !== undefined ? { defaultValue: p.default } : {}),
  };
  const options = p.enum?.length
    ? {
        options: p.enum.map(
          (value, i): EnumOption => ({
            value,
            title: p.enumTitles?.[i] ?? (typeof value === "string" ? value : jsonText(value)),
          }),
        ),
      }
    : {};
  const type_ = p.type ?? "string";
  switch (type_) {
    case "string":
      return {
        ...base,
        input: p.enum?.length ? "select" : p.encrypted ? "secret" : "text",
        valueType: "string",
        ...options,
        ...(p.pattern !== undefined ? { pattern: p.pattern } : {}),
        ...(p.minLength !== undefined ? { minLength: p.minLength } : {}),
        ...(p.maxLength !== undefined ? { maxLength: p.maxLength } : {}),
      };
    case "integer":
    case "long":
    case "number":
    case "boolean": {
      const valueType = type_ === "long" ? "integer" : type_;
      return { ...base, input: p.enum?.length ? "select" : valueType, valueType, ...options };
    }
    case "object":
      return { ...base, input: "json", valueType: "object", ...options };
    case "array": {
      const items = p.items ?? { type: "string" };
      const item = valueField(type, "", { ...items, required: true }, mode, seen);
      return {
        ...base,
        input: "array",
        valueType: "array",
        item,
        ...options,
        ...(p.minItems !== undefined ? { minItems: p.minItems } : {}),
        ...(p.maxItems !== undefined ? { maxItems: p.maxItems } : {}),
        ...(p.uniqueItems ? { uniqueItems: true } : {}),
      };
    }
    case "self":
      return { ...base, input: "link", valueType: "link", linkType: type.id };
    default: {
      const s = findStructure(type, type_);
      const ref = type_.includes("#") ? type_ : s ? `${s.from}#${s.name}` : type_;
      if (s && !seen.has(ref)) {
        const inner = new Set([...seen, ref]);
        const fields = Object.entries(s.decl.properties ?? {}).map(([name, member]) =>
          valueField(type, name, member, mode, inner),
        );
        return { ...base, input: "structure", valueType: "structure", structure: s.name, fields };
      }
      // A type id: a link to a resource of that type.
      if (type_.includes("://") && !type_.includes("#"))
        return { ...base, input: "link", valueType: "link", linkType: type_ };
      // A structure that contains itself, or a type the console cannot see: JSON text, checked by the controller.
      return { ...base, input: "json", valueType: "any" };
    }
  }
}

function describe(text: string | undefined, fallback?: string): { description?: string } {
  const d = text ?? fallback;
  return d ? { description: d } : {};
}
