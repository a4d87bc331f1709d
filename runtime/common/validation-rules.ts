/**
 * The errors generated validators report, one builder per rule of docs/aps/resources.md ("Property
 * attributes", "The access object", "Limits"). Each message is written once, here, instead of in
 * every generated module: a 1000-type package's validators were 17 MB, most of it the same
 * sentences spelled out per property. Generated code still decides inline whether a value is valid
 * (no call on the happy path except {@link isInt64}); these run only when something is wrong.
 */
import { Limits } from "./limits.ts";
import { codePointLength, showValue, typeError, type ValidationError } from "./validation-error.ts";

// The range as doubles: -2^63 and 2^63 are exact, and every double below 2^63 fits.
const MIN_INT64_NUMBER = Number(Limits.minInt64);
const ABOVE_INT64_NUMBER = Number(Limits.maxInt64);

/** Whether `v` is an integer (a whole JS number or a bigint) inside the signed 64-bit range (docs/aps/resources.md, "Limits"). */
export function isInt64(v: unknown): v is number | bigint {
  if (typeof v === "bigint") return v >= Limits.minInt64 && v <= Limits.maxInt64;
  return Number.isInteger(v) && (v as number) >= MIN_INT64_NUMBER && (v as number) < ABOVE_INT64_NUMBER;
}

/** `<value> is outside the signed 64-bit range (...)`: for body values and for parameter text alike. */
export function int64RangeMessage(value: string): string {
  return `${value} is outside the signed 64-bit range (${Limits.minInt64} to ${Limits.maxInt64})`;
}

/** Why `v` failed {@link isInt64}: not an integer, or outside the 64-bit range. */
export function int64Error(path: string, v: unknown): ValidationError {
  if (typeof v === "bigint" || Number.isInteger(v)) {
    return { path, code: "range", message: int64RangeMessage(String(v)) };
  }
  return typeError(path, "an integer", v);
}

/** A string over its `maxLength`. */
export function tooLong(path: string, v: string, max: number): ValidationError {
  return { path, code: "maxLength", message: `has ${codePointLength(v)} characters; at most ${max} are allowed` };
}

/** A string over the 4000 characters any string property holds (docs/aps/resources.md, "Limits"). */
export function overStringLimit(path: string, v: string): ValidationError {
  return {
    path,
    code: "limit",
    message: `has ${codePointLength(v)} characters; the most a string property can hold is ${Limits.maxStringLength}`,
  };
}

/** A string under its `minLength`. */
export function tooShort(path: string, v: string, min: number): ValidationError {
  return {
    path,
    code: "minLength",
    message: `has ${codePointLength(v)} characters; at least ${min} ${min === 1 ? "is" : "are"} required`,
  };
}

/** A string that does not match its `pattern` (the declared source text). */
export function patternMismatch(path: string, pattern: string, v: string): ValidationError {
  return { path, code: "pattern", message: `does not match the pattern ${pattern}: ${showValue(v)}` };
}

/** A value outside its `enum`; `listed` is the declared values as JSON text, cut at build time. */
export function notInEnum(path: string, v: unknown, listed: string): ValidationError {
  return { path, code: "enum", message: `${showValue(v)} is not one of the allowed values: ${listed}` };
}

/** An array under its `minItems`. */
export function tooFewItems(path: string, count: number, min: number): ValidationError {
  return {
    path,
    code: "minItems",
    message: `has ${count} items; at least ${min} ${min === 1 ? "is" : "are"} required`,
  };
}

/** An array over its `maxItems`. */
export function tooManyItems(path: string, count: number, max: number): ValidationError {
  return { path, code: "maxItems", message: `has ${count} items; at most ${max} are allowed` };
}

/** An item equal to an earlier one in a `uniqueItems` array. */
export function repeatedItem(path: string, index: number): ValidationError {
  return { path, code: "uniqueItems", message: `item ${index} repeats an earlier item; items must be unique` };
}

/** An array of structures whose JSON text is over its limit (docs/aps/resources.md, "Limits"). */
export function structureArrayTooLong(path: string): ValidationError {
  return {
    path,
    code: "limit",
    message: `is longer than ${Limits.maxStructureArrayJson} characters as JSON, the most an array of structures can hold; model long lists as a separate type linked by a relation`,
  };
}

/** A property whose access object (docs/aps/resources.md, "The access object") denies every role of the writer; `allowed` names the roles it allows. */
export function accessDenied(path: string, allowed: string): ValidationError {
  return { path, code: "access", message: `may not be written with the caller's roles; its access allows ${allowed}` };
}

/** A readonly property written by a user (docs/aps/resources.md, "Property attributes"). */
export function readOnly(path: string): ValidationError {
  return { path, code: "readonly", message: "is read-only: only the application sets it" };
}

/** A final property in a configure body (docs/aps/resources.md, "Property attributes"). */
export function finalOnUpdate(path: string): ValidationError {
  return {
    path,
    code: "final",
    message: "is final: it can be set only when the resource is created, not changed by configure",
  };
}

/** A required property or parameter that is missing. */
export function missing(path: string): ValidationError {
  return { path, code: "required", message: "is required" };
}

/** A required property sent as null (null means "no value"). */
export function nullRequired(path: string): ValidationError {
  return { path, code: "required", message: "is required and cannot be null" };
}

/** A body key no member declares: `"<key>" <what>`, e.g. `is not a property of Mailbox; known: ...`. */
export function unknownKey(path: string, key: string, what: string): ValidationError {
  return { path, code: "unknown", message: `"${key}" ${what}` };
}

/** A relation in a configure body: links change through the relation's own collection. */
export function relationOnUpdate(path: string, relation: string): ValidationError {
  return {
    path,
    code: "unknown",
    message: `is a relation: change its links with POST or DELETE /aps/2/resources/{id}/${relation}, not with configure`,
  };
}
