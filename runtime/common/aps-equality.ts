/**
 * APS equality (docs/aps/resources.md, "Equality"), the comparison behind `uniqueItems` and `enum`.
 * Shared by the generator's declaration checks and the generated validators, so both agree on what
 * "the same value" means.
 */

/**
 * Whether two JSON values are equal under APS equality: they must have the same JSON type, and
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
 * The index of the first value that equals an earlier one (apsEqual), or -1 when all values are
 * distinct. Strings, numbers, booleans and null are compared through a map in one pass (a
 * number and a bigint holding the same integer share a key, as they are equal); arrays and
 * objects pairwise, among themselves only, since they never equal a scalar.
 */
export function firstDuplicate(values: readonly unknown[]): number {
  if (values.length < 2) return -1;
  let scalars: Set<unknown> | undefined;
  let composites: unknown[] | undefined;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== null && typeof v === "object") {
      composites ??= [];
      for (const c of composites) if (apsEqual(c, v)) return i;
      composites.push(v);
      continue;
    }
    const key = scalarKey(v);
    scalars ??= new Set();
    if (scalars.has(key)) return i;
    scalars.add(key);
  }
  return -1;
}

/** Strings stay themselves; other scalars get a key no string can collide with. */
function scalarKey(v: unknown): unknown {
  // One representation per integer: numbers while safe, bigints beyond.
  if (typeof v === "bigint") return v >= -MAX_SAFE && v <= MAX_SAFE ? Number(v) : v;
  if (typeof v === "number" && Number.isInteger(v) && !Number.isSafeInteger(v)) return BigInt(v);
  return v;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

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
