/** Any value as short text for a cell or an attribute: strings as they are, the rest as JSON, 64-bit integers (bigint) exact. */
export function valueText(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "bigint") return value.toString();
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)) ?? String(value);
}
