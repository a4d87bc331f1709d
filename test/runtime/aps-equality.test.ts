import { describe, expect, it } from "vitest";
import { apsEqual, firstDuplicate } from "../../runtime/common/aps-equality.ts";

describe("apsEqual (docs/aps/resources.md, equality)", () => {
  it("requires the same JSON type", () => {
    expect(apsEqual(1, "1")).toBe(false);
    expect(apsEqual(0, false)).toBe(false);
    expect(apsEqual("", null)).toBe(false);
    expect(apsEqual([], {})).toBe(false);
    expect(apsEqual(null, {})).toBe(false);
  });

  it("compares booleans, numbers and strings by value", () => {
    expect(apsEqual(true, true)).toBe(true);
    expect(apsEqual(true, false)).toBe(false);
    expect(apsEqual(1.5, 1.5)).toBe(true);
    expect(apsEqual(1, 2)).toBe(false);
    expect(apsEqual("a", "a")).toBe(true);
    expect(apsEqual("a", "A")).toBe(false);
  });

  it("treats null as equal to null only", () => {
    expect(apsEqual(null, null)).toBe(true);
    expect(apsEqual(null, undefined)).toBe(false);
  });

  it("compares arrays position by position", () => {
    expect(apsEqual([1, "a", [true]], [1, "a", [true]])).toBe(true);
    expect(apsEqual([1, 2], [2, 1])).toBe(false);
    expect(apsEqual([1], [1, 1])).toBe(false);
  });

  it("compares objects by property names and values, regardless of key order", () => {
    expect(apsEqual({ a: 1, b: { c: [1] } }, { b: { c: [1] }, a: 1 })).toBe(true);
    expect(apsEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(apsEqual({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(apsEqual({ a: 1 }, { a: "1" })).toBe(false);
  });

  it("compares a 64-bit integer held as bigint with the same number exactly", () => {
    expect(apsEqual(5n, 5)).toBe(true);
    expect(apsEqual(9223372036854775807n, 9223372036854775807n)).toBe(true);
    expect(apsEqual(9007199254740993n, 9007199254740992)).toBe(false);
    expect(apsEqual(1.5, 1n)).toBe(false);
  });
});

describe("firstDuplicate", () => {
  it("finds the first value equal to an earlier one", () => {
    expect(firstDuplicate(["a", "b", "c"])).toBe(-1);
    expect(firstDuplicate([{ x: 1, y: 2 }, "b", { y: 2, x: 1 }])).toBe(2);
    expect(firstDuplicate([1, "1", 1])).toBe(2);
  });
});

describe("firstDuplicate on scalars and mixed integers", () => {
  it("treats a number and a bigint holding the same integer as duplicates, at any size", () => {
    expect(firstDuplicate([5, 6, 5n])).toBe(2);
    expect(firstDuplicate([9223372036854775807n, 1, 9223372036854775807n])).toBe(2);
    expect(firstDuplicate([2 ** 60, 2n ** 60n])).toBe(1);
    expect(firstDuplicate([9007199254740993n, 9007199254740992])).toBe(-1);
  });

  it("keeps types apart and finds composites equal regardless of key order", () => {
    expect(firstDuplicate([true, "true", 1, "1", null, "null"])).toBe(-1);
    expect(
      firstDuplicate([
        [1, 2],
        [2, 1],
        [1, 2],
      ]),
    ).toBe(2);
    expect(firstDuplicate([null, null])).toBe(1);
  });
});
