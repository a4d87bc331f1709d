/**
 * APS equality (SPEC 2.6), used by `uniqueItems` and `enum`: two values are equal only when
 * they have the same JSON type and the same value; arrays compare item by item, objects by
 * their property names and values regardless of key order. `1` and `"1"` differ.
 */
export function apsEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") {
    // Numbers arriving as bigint (64-bit integers) equal the same number.
    if ((typeof a === "bigint" || typeof a === "number") && (typeof b === "bigint" || typeof b === "number")) {
      return Number.isInteger(Number(a)) && Number.isInteger(Number(b)) && BigInt(a as number) === BigInt(b as number);
    }
    return false;
  }
  const aArray = Array.isArray(a);
  if (aArray !== Array.isArray(b)) return false;
  if (aArray) {
    const bb = b as unknown[];
    const aa = a as unknown[];
    if (aa.length !== bb.length) return false;
    for (let i = 0; i < aa.length; i++) if (!apsEqual(aa[i], bb[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao);
  if (keys.length !== Object.keys(bo).length) return false;
  for (const k of keys) if (!Object.hasOwn(bo, k) || !apsEqual(ao[k], bo[k])) return false;
  return true;
}

/** Index of the first value that equals an earlier one (SPEC 2.6), or -1 when all are distinct. */
export function firstDuplicate(values: readonly unknown[]): number {
  for (let i = 1; i < values.length; i++) for (let j = 0; j < i; j++) if (apsEqual(values[i], values[j])) return i;
  return -1;
}
