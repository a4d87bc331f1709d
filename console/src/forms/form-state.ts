/**
 * What a form holds while a person fills it in, and the values it stands for. Inputs hold text
 * (so that "12x" in an integer box is kept and reported, not silently dropped), arrays a list of
 * item states, structures a state per member. `formValues` turns the state into the JSON values to
 * check and send; `initialState` fills a form from values (a resource being configured, or the
 * declared defaults of a new one).
 */
import { apsEqual } from "../../../runtime/common/aps-equality.ts";
import { linkRefId } from "../../../runtime/common/link-ref.ts";
import { jsonText, parseJson } from "../../../runtime/client/json.ts";
import type { FieldSpec, FormModel } from "./form-model.ts";

/** Text of a scalar input; a list for an array; a state per member key for a structure. */
export type FieldState = string | readonly FieldState[] | { readonly [key: string]: FieldState };
export type FormState = { readonly [key: string]: FieldState };

/** JSON text that does not parse: kept as what was typed, so that the validator reports it on its field. */
export class InvalidJson {
  constructor(
    readonly text: string,
    readonly reason: string,
  ) {}
}

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** The state of a new or existing form: `values` by key (a resource, or defaults); a provision form starts from the declared defaults. */
export function initialState(model: FormModel, values: Readonly<Record<string, unknown>> = {}): FormState {
  const out: Record<string, FieldState> = {};
  for (const f of model.fields)
    out[f.key] = stateOf(f, f.key in values ? values[f.key] : model.mode === "configure" ? undefined : f.defaultValue);
  return out;
}

/** The state of one field holding `value` (undefined: empty). */
export function stateOf(f: FieldSpec, value: unknown): FieldState {
  switch (f.input) {
    case "structure": {
      const o = isObject(value) ? value : {};
      const out: Record<string, FieldState> = {};
      for (const m of f.fields ?? [])
        out[m.key] = stateOf(m, m.key in o ? o[m.key] : value === undefined ? m.defaultValue : undefined);
      return out;
    }
    case "array":
      return Array.isArray(value) ? value.map((item) => stateOf(f.item!, item)) : [];
    case "secret":
      // Encrypted values are never shown back, and the controller does not answer them.
      return "";
    case "select": {
      if (value === undefined || value === null) return "";
      const at = (f.options ?? []).findIndex((o) => apsEqual(o.value, value));
      return at < 0 ? "" : String(at);
    }
    case "link":
      return linkRefId(value) ?? (typeof value === "string" ? value : "");
    case "json":
      return value === undefined || value === null ? "" : jsonText(value);
    default:
      if (value === undefined || value === null) return "";
      return typeof value === "string" ? value : typeof value === "object" ? jsonText(value) : String(value);
  }
}

/**
 * The values a form's state stands for, by key: what is left empty is undefined (so left out),
 * text that does not convert stays text (a string where an integer belongs, which the validator
 * reports with the project's own message), malformed JSON an {@link InvalidJson}. Fields that are
 * not editable are left out: they are shown, never sent.
 */
export function formValues(model: FormModel, state: FormState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of model.fields) {
    if (!f.editable) continue;
    const v = fieldValue(f, state[f.key] ?? "");
    if (v !== undefined) out[f.key] = v;
  }
  return out;
}

/** The value of one field's state; undefined when empty. */
export function fieldValue(f: FieldSpec, s: FieldState): unknown {
  if (f.input === "structure") {
    const o = (typeof s === "object" && !Array.isArray(s) ? s : {}) as Record<string, FieldState>;
    const out: Record<string, unknown> = {};
    for (const m of f.fields ?? []) {
      if (!m.editable) continue;
      const v = fieldValue(m, o[m.key] ?? "");
      if (v !== undefined) out[m.key] = v;
    }
    // An optional structure nobody filled in is not sent at all.
    return Object.keys(out).length === 0 && !f.required ? undefined : out;
  }
  if (f.input === "array") {
    const items = Array.isArray(s) ? (s as FieldState[]) : [];
    return items.length === 0 && !f.required ? undefined : items.map((item) => fieldValue(f.item!, item));
  }
  const text = typeof s === "string" ? s : "";
  if (text === "") return undefined;
  // Parameters travel as text in the URL; the controller converts them.
  if (f.parameterType) return text;
  switch (f.input) {
    case "integer":
      if (!INTEGER.test(text.trim())) return text;
      return Number.isSafeInteger(Number(text)) ? Number(text) : BigInt(text.trim());
    case "number": {
      const n = Number(text);
      return NUMBER.test(text.trim()) && Number.isFinite(n) ? n : text;
    }
    case "boolean":
      return text === "true" ? true : text === "false" ? false : text;
    case "select":
      return f.options?.[Number(text)]?.value;
    case "link":
      return { aps: { id: text.trim() } };
    case "json":
      try {
        return parseJson(text);
      } catch (error) {
        return new InvalidJson(text, (error as Error).message);
      }
    default:
      return text;
  }
}

/**
 * A configure body: the members whose value differs from what the form started with; a member
 * emptied is sent as null, which clears it (an optional property's "no value").
 */
export function changedValues(model: FormModel, initial: FormState, state: FormState): Record<string, unknown> {
  const before = formValues(model, initial);
  const now = formValues(model, state);
  const out: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(now)])) {
    const was = before[key];
    const is = now[key];
    if (is === undefined) {
      if (was !== undefined) out[key] = null;
    } else if (was === undefined || !apsEqual(was, is)) out[key] = is;
  }
  return out;
}

/** The state with the value at `path` (member keys and array indexes) replaced. */
export function setAt(state: FieldState, path: readonly (string | number)[], value: FieldState): FieldState {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(state)) {
    const copy = [...(state as FieldState[])];
    copy[head as number] = setAt(copy[head as number] ?? "", rest, value);
    return copy;
  }
  const o = (typeof state === "object" ? state : {}) as Record<string, FieldState>;
  return { ...o, [head as string]: setAt(o[head as string] ?? "", rest, value) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
