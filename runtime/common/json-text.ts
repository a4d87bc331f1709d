/**
 * JSON text <-> values without losing 64-bit integers (SPEC 8). `JSON.parse` rounds
 * 9223372036854775807 to 9223372036854775808, which would turn a valid value into an invalid
 * one, so integer literals outside ±(2^53 − 1) become `bigint`. Everything else parses exactly as
 * `JSON.parse` would, including "the last duplicate key wins".
 */
import { parse as losslessParse, stringify as losslessStringify } from "lossless-json";

/**
 * A safe integer has at most 16 digits, so a text without a run of 16 digits holds none that
 * `JSON.parse` could round: the common case takes the native parser. A run inside a string or a
 * fraction only sends the text down the exact (slower) path, it never changes the result.
 */
const MAYBE_UNSAFE_INTEGER = /\d{16}/;
const INTEGER_TEXT = /^-?\d+$/;

/** Parses JSON text; throws `SyntaxError` on malformed input, like `JSON.parse`. */
export function parseJsonText(text: string): unknown {
  if (!MAYBE_UNSAFE_INTEGER.test(text)) return JSON.parse(text);
  return losslessParse(text, null, { parseNumber: parseNumberText, onDuplicateKey: ({ newValue }) => newValue });
}

function parseNumberText(text: string): number | bigint {
  const n = Number(text);
  return Number.isSafeInteger(n) || !INTEGER_TEXT.test(text) ? n : BigInt(text);
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
