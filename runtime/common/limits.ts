/** Limits of SPEC 8, shared by the checker and the validators. */
export const Limits = {
  /** Longest string property value, in characters. */
  maxStringLength: 4000,
  /** Longest JSON text of an array of structures (it is stored as one JSON string). */
  maxStructureArrayJson: 4000,
  minInt64: -9223372036854775808n,
  maxInt64: 9223372036854775807n,
} as const;

/** Units of SPEC 2.4. */
export const UNITS: ReadonlySet<string> = new Set(["item", "unit", "kb", "mb", "gb", "item-h", "mb-h", "mhzh"]);

/** Formats of SPEC 2.5 (never validated: they only guide user interfaces). */
export const FORMATS: ReadonlySet<string> = new Set([
  "date-time", "date", "time", "uri", "email", "ipv4", "ipv6", "ip-address", "domain-name", "host-name", "version", "regex",
]);

/** Whether an integer written as JSON text fits the signed 64-bit range. */
export function isInt64Text(text: string): boolean {
  if (!/^-?\d+$/.test(text)) return false;
  const n = BigInt(text);
  return n >= Limits.minInt64 && n <= Limits.maxInt64;
}
