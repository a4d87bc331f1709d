/**
 * The error shape of every validator: all errors at once, each naming where
 * (a JSON pointer into the body), what rule (a stable code) and what to do (a message).
 */
import { stringifyJson } from "./json-text.ts";

/** Stable codes of validation errors; clients may switch on them. */
export type ValidationCode =
  /** The value has the wrong JSON type (or a parameter text does not convert). */
  | "type"
  /** A required property or parameter is missing, or is null. */
  | "required"
  /** The body names a property the type does not declare. */
  | "unknown"
  /** A user set a property only the application may set (`readonly`, docs/aps/resources.md, "Property attributes"). */
  | "readonly"
  /** A property that can be set only on creation appears in a configure body (`final`, docs/aps/resources.md, "Property attributes"). */
  | "final"
  /** The property's access object denies every role the writer holds (docs/aps/resources.md, "The access object"). */
  | "access"
  | "pattern"
  | "minLength"
  | "maxLength"
  | "minItems"
  | "maxItems"
  | "uniqueItems"
  | "enum"
  /** An integer outside the signed 64-bit range (docs/aps/resources.md, "Limits"). */
  | "range"
  /** A size limit (docs/aps/resources.md, "Limits"): strings over 4000 characters, arrays of structures over 4000 as JSON. */
  | "limit";

/** One problem with one value. */
export interface ValidationError {
  /** JSON pointer (RFC 6901) to the value, `""` for the body itself. */
  readonly path: string;
  readonly code: ValidationCode;
  /** What is wrong, phrased so a person can fix it; does not repeat the path. */
  readonly message: string;
}

/** `/quota: 5000000000000000000000 is outside the signed 64-bit range`, one line per error. */
export function formatValidationError(e: ValidationError): string {
  return `${e.path === "" ? "(body)" : e.path}: ${e.message}`;
}

/** A key as a JSON-pointer segment (RFC 6901: `~` -> `~0`, `/` -> `~1`). */
export function pointerSegment(key: string): string {
  return key.includes("~") || key.includes("/") ? key.replace(/~/g, "~0").replace(/\//g, "~1") : key;
}

/** The JSON type of a value, with `integer` for whole numbers, for messages. */
export function jsonTypeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "bigint") return "integer";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

/** A short, exact rendering of a value for messages (long strings are cut). */
export function showValue(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
  if (typeof v === "bigint" || typeof v === "number" || typeof v === "boolean" || v === null) return String(v);
  if (Array.isArray(v)) return `an array of ${v.length} item${v.length === 1 ? "" : "s"}`;
  if (typeof v === "object") return "an object";
  return typeof v;
}

/** `expected a string, got 42`. */
export function typeError(path: string, expected: string, v: unknown): ValidationError {
  return {
    path,
    code: "type",
    message: `expected ${expected}, got ${v === null || typeof v === "object" ? jsonTypeOf(v) : `${jsonTypeOf(v)} ${showValue(v)}`}`,
  };
}

/** Length in characters (Unicode code points, as JSON Schema counts them), not UTF-16 units. */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Matches a high surrogate: only strings with one can have fewer characters than UTF-16 units. */
export const HIGH_SURROGATE = /[\uD800-\uDBFF]/;

/** Length in characters of a value's JSON text (arrays of structures are stored as JSON: docs/aps/resources.md, "Limits"). */
export function jsonTextLength(v: unknown): number {
  let text: string;
  try {
    text = JSON.stringify(v);
  } catch {
    // A bigint inside: the exact serialiser.
    text = stringifyJson(v);
  }
  return HIGH_SURROGATE.test(text) ? codePointLength(text) : text.length;
}
