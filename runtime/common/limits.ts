/**
 * Limits and vocabularies of the SPEC that both the generator's checks and the generated
 * validators enforce, kept in one place so they cannot drift apart.
 */

/** Limits of SPEC 8. */
export const Limits = {
  /** Longest string property value, in characters. */
  maxStringLength: 4000,
  /** Longest JSON text of an array of structures (it is stored as one JSON string). */
  maxStructureArrayJson: 4000,
  /** Smallest signed 64-bit integer. */
  minInt64: -9223372036854775808n,
  /** Largest signed 64-bit integer. */
  maxInt64: 9223372036854775807n,
} as const;

/**
 * Units of SPEC 2.4, in the order the SPEC lists them, then `unit-h` (unit-hours, additive): the
 * platform offers "Application Counter (unit-hours)" beside "(unit)" (kb.cloudblue.com/en/124343),
 * its subscription resource lines take any unit (`unit|b|kb|mb|gb|.*`, core-types.md), and real
 * PHP packages write `@unit("unit-h")` 22 times (php-annotations.md section 3). SPEC 2.4 lists the
 * twin `item-h` for `item`.
 */
export const UNITS: ReadonlySet<string> = new Set(["item", "unit", "kb", "mb", "gb", "item-h", "mb-h", "mhzh", "unit-h"]);

/** Formats of SPEC 2.5 (never validated: they only guide user interfaces). */
export const FORMATS: ReadonlySet<string> = new Set([
  "date-time", "date", "time", "uri", "email", "ipv4", "ipv6", "ip-address", "domain-name", "host-name", "version", "regex",
]);

/** Whether JSON text is an integer literal (no fraction, no exponent). */
export function isIntegerText(text: string): boolean {
  return /^-?\d+$/.test(text);
}

/** Whether an integer written as JSON text fits the signed 64-bit range of SPEC 8. */
export function isInt64Text(text: string): boolean {
  if (!isIntegerText(text)) return false;
  const n = BigInt(text);
  return n >= Limits.minInt64 && n <= Limits.maxInt64;
}
