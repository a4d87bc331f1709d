/**
 * Limits and vocabularies of APS declarations (docs/aps/resources.md) that both the generator's
 * checks and the generated validators enforce, kept in one place so they cannot drift apart.
 */

/** Limits of values (docs/aps/resources.md, "Limits"). */
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
 * Units (docs/aps/resources.md, "Units"): those of the APS property page, then `unit-h`
 * (unit-hours, additive), which that page does not list: the platform offers "Application Counter
 * (unit-hours)" beside "(unit)" (kb.cloudblue.com/en/124343), the core Subscription type lets a
 * resource line name any unit, and published PHP packages declare `@unit("unit-h")`. The page lists
 * its twin `item-h` for `item`.
 */
export const UNITS: ReadonlySet<string> = new Set([
  "item",
  "unit",
  "kb",
  "mb",
  "gb",
  "item-h",
  "mb-h",
  "mhzh",
  "unit-h",
]);

/** Formats (docs/aps/resources.md, "Formats"; never validated: they only guide user interfaces). */
export const FORMATS: ReadonlySet<string> = new Set([
  "date-time",
  "date",
  "time",
  "uri",
  "email",
  "ipv4",
  "ipv6",
  "ip-address",
  "domain-name",
  "host-name",
  "version",
  "regex",
]);

/** Whether JSON text is an integer literal (no fraction, no exponent). */
export function isIntegerText(text: string): boolean {
  return /^-?\d+$/.test(text);
}

/** Whether an integer written as JSON text fits the signed 64-bit range (docs/aps/resources.md, "Limits"). */
export function isInt64Text(text: string): boolean {
  if (!isIntegerText(text)) return false;
  const n = BigInt(text);
  return n >= Limits.minInt64 && n <= Limits.maxInt64;
}
