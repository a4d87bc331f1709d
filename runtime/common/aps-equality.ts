/**
 * APS equality (SPEC 2.6), the comparison behind `uniqueItems` and `enum`. Shared by the
 * generator's declaration checks and the generated validators, so both agree on what "the same
 * value" means.
 */

/**
 * Whether two JSON values are equal under SPEC 2.6: they must have the same JSON type, and
 * - both are null, or
 * - both are booleans, numbers or strings with the same value, or
 * - both are arrays of the same length whose items are equal position by position, or
 * - both are objects with the same property names whose values are equal name by name
 *   (key order does not matter).
 *
 * So `1` and `"1"` differ, and `{a: 1, b: 2}` equals `{b: 2, a: 1}`. A 64-bit integer may arrive
 * as a `bigint` (see `Int64`); it equals a `number` holding the same integer, because both are
 * the JSON type number.
 *
 * @example apsEqual([1, {a: "x"}], [1, {a: "x"}]) // true
 * @example apsEqual(1, "1") // false
 */
export function apsEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isNumeric(a) && isNumeric(b)) return sameNumber(a, b);
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  const aIsArray = Array.isArray(a);
  if (aIsArray !== Array.isArray(b)) return false;
  if (aIsArray) {
    const left = a as readonly unknown[];
    const right = b as readonly unknown[];
    return left.length === right.length && left.every((item, i) => apsEqual(item, right[i]));
  }
  const left = a as Readonly<Record<string, unknown>>;
  const right = b as Readonly<Record<string, unknown>>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((k) => Object.hasOwn(right, k) && apsEqual(left[k], right[k]));
}

/**
 * The index of the first value that equals an earlier one (SPEC 2.6), or -1 when all values are
 * distinct. Quadratic, which is fine for enum lists and the short arrays `uniqueItems` guards.
 */
export function firstDuplicate(values: readonly unknown[]): number {
  for (let i = 1; i < values.length; i++) {
    for (let j = 0; j < i; j++) if (apsEqual(values[i], values[j])) return i;
  }
  return -1;
}

function isNumeric(v: unknown): v is number | bigint {
  return typeof v === "number" || typeof v === "bigint";
}

function sameNumber(a: number | bigint, b: number | bigint): boolean {
  if (typeof a === typeof b) return a === b;
  // Mixed number/bigint: only integers can match, and BigInt() compares them exactly.
  const n = (typeof a === "number" ? a : b) as number;
  const big = (typeof a === "bigint" ? a : b) as bigint;
  return Number.isInteger(n) && BigInt(n) === big;
}
