/**
 * JSON text <-> values without losing 64-bit integers (docs/aps/resources.md, "Limits").
 * `JSON.parse` rounds 9223372036854775807 to 9223372036854775808, which would turn a valid value
 * into an invalid one, so integer literals outside ±(2^53 − 1) become `bigint`. Everything else
 * parses exactly as `JSON.parse` would, including "the last duplicate key wins".
 */
import { parse as losslessParse, stringify as losslessStringify } from "lossless-json";

/**
 * A safe integer has at most 16 digits, so a text without a run of 16 digits that could be an
 * integer literal (not after a `.` or a digit, not followed by `.`, an exponent or a digit) holds
 * none that `JSON.parse` could round: the common case takes the native parser. Doubles printed in
 * full (`71.71428571428571`) have their long run after the point and stay on it. A run inside a
 * string only sends the text down the exact (slower) path, it never changes the result. A run of
 * 309 digits anywhere (a double's integer part past its range) takes the exact path too.
 */
const MAYBE_UNSAFE_INTEGER = /(?<![\d.])\d{16,}(?![\d.eE])|\d{309}/;
const INTEGER_TEXT = /^-?\d+$/;
/**
 * A number can only pass the double range (about 1.8e308; `JSON.parse` makes it `Infinity`, which
 * is then stored as `null`) with an exponent of three digits or 309 digits in a row (those take
 * the exact parser, which checks each number). Only a text with such an exponent has its parsed
 * value looked at again; a match inside a string (a hex id such as `1e123ab`) costs that walk only.
 */
const MAYBE_BEYOND_DOUBLE = /[eE]\+?0*[1-9]\d\d/;
const BEYOND_DOUBLE = "is beyond the range of a double (about ±1.8e308)";

/**
 * Parses JSON text; throws `SyntaxError` on malformed input, like `JSON.parse`, and on a
 * fractional or exponent number beyond the double range (an APS `number` is a double; an
 * integer that long stays an exact `bigint`, for the validators' range checks to refuse).
 */
export function parseJsonText(text: string): unknown {
  if (MAYBE_UNSAFE_INTEGER.test(text))
    return losslessParse(text, null, { parseNumber: parseNumberText, onDuplicateKey: ({ newValue }) => newValue });
  const value: unknown = JSON.parse(text);
  if (MAYBE_BEYOND_DOUBLE.test(text) && holdsInfinity(value)) throw new SyntaxError(`a number ${BEYOND_DOUBLE}`);
  return value;
}

/** Whether `JSON.parse` turned some number into ±Infinity. */
function holdsInfinity(value: unknown): boolean {
  if (typeof value === "number") return !Number.isFinite(value);
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some(holdsInfinity);
  for (const k in value) if (holdsInfinity((value as Record<string, unknown>)[k])) return true;
  return false;
}

function parseNumberText(text: string): number | bigint {
  const n = Number(text);
  if (!Number.isSafeInteger(n) && INTEGER_TEXT.test(text)) return BigInt(text);
  if (!Number.isFinite(n))
    throw new SyntaxError(`the number ${text.length > 24 ? `${text.slice(0, 20)}...` : text} ${BEYOND_DOUBLE}`);
  return n;
}

/** Serialises a value that may hold `bigint`s; they are written as exact JSON integers. */
export function stringifyJson(value: unknown, space?: number): string {
  if (!containsBigInt(value)) return JSON.stringify(value, null, space);
  return losslessStringify(value, null, space) ?? "null";
}

function containsBigInt(value: unknown): boolean {
  if (typeof value === "bigint") return true;
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some(containsBigInt);
  for (const k in value) if (containsBigInt((value as Record<string, unknown>)[k])) return true;
  return false;
}
