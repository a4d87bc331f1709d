import { beforeAll, describe, expect, it } from "vitest";
import type { TypeValidator } from "../../runtime/common/type-validator.ts";
import { body, codes, owner, widgetValidators } from "./widgets.ts";

let widget: TypeValidator;
beforeAll(async () => {
  ({ widget } = await widgetValidators());
});
const create = (extra: string) => codes(widget.validateCreate(body(extra), owner));
const messages = (extra: string) => widget.validateCreate(body(extra), owner).map((e) => `${e.path}: ${e.message}`);

describe("values: types", () => {
  it("accepts a minimal valid body", () => {
    expect(create("")).toEqual([]);
  });

  it.each([
    ['"note": 5', "/note type"],
    ['"count": "5"', "/count type"],
    ['"count": 1.5', "/count type"],
    ['"ratio": "1"', "/ratio type"],
    ['"on": 1', "/on type"],
    ['"on": "true"', "/on type"],
    ['"extra": []', "/extra type"],
    ['"extra": "x"', "/extra type"],
    ['"tags": "a"', "/tags type"],
    ['"origin": [1]', "/origin type"],
    ['"owner": {"id": "x"}', "/owner type"],
  ])("rejects %s", (extra, expected) => {
    expect(create(extra)).toEqual([expected]);
  });

  it.each([
    '"count": 0',
    '"count": -3',
    '"count": 1e3',
    '"ratio": 1',
    '"ratio": -0.5',
    '"on": false',
    '"extra": {"any": [1, {"x": null}]}',
    '"owner": {"aps": {"id": "r-1"}}',
  ])("accepts %s", (extra) => {
    expect(create(extra)).toEqual([]);
  });

  it("says what was expected and what came", () => {
    expect(messages('"count": "5"')).toEqual(['/count: expected an integer, got string "5"']);
    expect(messages('"extra": []')).toEqual(["/extra: expected an object, got array"]);
  });
});

describe("values: 64-bit integers (the APS limit), written as JSON text", () => {
  it("accepts both extremes and keeps them exact", () => {
    const b = body('"count": 9223372036854775807, "level": -9223372036854775808') as Record<string, unknown>;
    expect(widget.validateCreate(b, owner)).toEqual([]);
    expect(b.count).toBe(9223372036854775807n);
    expect(b.level).toBe(-9223372036854775808n);
  });

  it("rejects one past either extreme with a message naming the value", () => {
    expect(messages('"count": 9223372036854775808')).toEqual([
      "/count: 9223372036854775808 is outside the signed 64-bit range (-9223372036854775808 to 9223372036854775807)",
    ]);
    expect(create('"count": -9223372036854775809')).toEqual(["/count range"]);
    expect(messages('"count": 5000000000000000000000')[0]).toBe(
      "/count: 5000000000000000000000 is outside the signed 64-bit range (-9223372036854775808 to 9223372036854775807)",
    );
  });

  it("rejects a double beyond the range even without the lossless parser", () => {
    expect(codes(widget.validateCreate({ name: "abc", size: "m", count: 2 ** 63 }, owner))).toEqual(["/count range"]);
    expect(codes(widget.validateCreate({ name: "abc", size: "m", count: -(2 ** 63) }, owner))).toEqual([]);
  });

  it("compares 64-bit enum values exactly", () => {
    expect(create('"level": 9223372036854775807')).toEqual([]);
    expect(create('"level": 9223372036854775806')).toEqual(["/level enum"]);
    expect(create('"level": 1')).toEqual([]);
    expect(create('"level": 2')).toEqual(["/level enum"]);
  });
});

describe("values: strings (attributes, formats, limits)", () => {
  it("enforces minLength and maxLength in characters, not UTF-16 units", () => {
    expect(create('"name": "a"')).toEqual(["/name minLength"]);
    expect(create('"name": "abcdefghi"')).toEqual(["/name maxLength"]);
    expect(create('"name": "abcdefgh"')).toEqual([]);
    // Four astral characters are eight UTF-16 units but four characters: within maxLength 8... and the pattern.
    expect(codes(widget.validateCreate({ name: "abc", size: "m", note: "😀".repeat(4000) }, owner))).toEqual([]);
    expect(codes(widget.validateCreate({ name: "abc", size: "m", note: "😀".repeat(4001) }, owner))).toEqual([
      "/note limit",
    ]);
  });

  it("limits every string to 4000 characters", () => {
    expect(codes(widget.validateCreate({ name: "abc", size: "m", note: "x".repeat(4000) }, owner))).toEqual([]);
    expect(codes(widget.validateCreate({ name: "abc", size: "m", note: "x".repeat(4001) }, owner))).toEqual([
      "/note limit",
    ]);
    expect(codes(widget.validateCreate({ name: "abc", size: "m", note: "" }, owner))).toEqual([]);
  });

  it("applies pattern as an ECMA-262 search and ignores format when a pattern is present", () => {
    expect(create('"name": "ABC"')).toEqual(["/name pattern"]);
    expect(messages('"name": "a1b"')).toEqual(['/name: does not match the pattern ^[a-z]+$: "a1b"']);
  });

  it("never validates format", () => {
    expect(create('"note": "not an e-mail address"')).toEqual([]);
  });

  it("checks enum with APS equality: type matters", () => {
    expect(create('"size": "l"')).toEqual([]);
    expect(create('"size": "xl"')).toEqual(["/size enum"]);
    expect(messages('"size": "xl"')).toEqual(['/size: "xl" is not one of the allowed values: "s", "m", "l"']);
    expect(create('"level": "1"')).toEqual(["/level type"]);
  });
});

describe("values: arrays and structures (attributes, equality, limits)", () => {
  it("enforces minItems, maxItems and item types, reporting each bad item", () => {
    expect(create('"tags": []')).toEqual(["/tags minItems"]);
    expect(create('"tags": ["a", "b", "c", "d"]')).toEqual(["/tags maxItems"]);
    expect(create('"tags": ["a", 2, null]')).toEqual(["/tags/1 type", "/tags/2 type"]);
  });

  it("enforces uniqueItems with APS equality, objects regardless of key order", () => {
    expect(create('"tags": ["a", "a"]')).toEqual(["/tags uniqueItems"]);
    expect(create('"points": [{"x": 1, "y": 2}, {"y": 2, "x": 1}]')).toEqual(["/points uniqueItems"]);
    expect(create('"points": [{"x": 1}, {"x": 2}]')).toEqual([]);
  });

  it("checks structure members: required, unknown, null, nested enum", () => {
    expect(create('"origin": {"y": 1}')).toEqual(["/origin/x required"]);
    expect(create('"origin": {"x": 1, "z": 1}')).toEqual(["/origin/z unknown"]);
    expect(create('"origin": {"x": 1, "y": null}')).toEqual(["/origin/y type"]);
    expect(create('"origin": {"x": 1, "label": "c"}')).toEqual(["/origin/label enum"]);
    expect(create('"points": [{"x": 1}, {"x": "2"}]')).toEqual(["/points/1/x type"]);
  });

  it("resolves <type-id>#<Structure> to the other type's checker", () => {
    expect(create('"badge": {"text": "hi"}')).toEqual([]);
    expect(create('"badge": {"text": "toolong"}')).toEqual(["/badge/text maxLength"]);
  });

  it("limits an array of structures to 4000 characters of JSON", () => {
    const points = (n: number) => Array.from({ length: n }, (_, i) => ({ x: i, label: "a" }));
    const fits = points(150);
    expect(JSON.stringify(fits).length).toBeLessThanOrEqual(4000);
    expect(codes(widget.validateCreate({ name: "abc", size: "m", points: fits }, owner))).toEqual([]);
    expect(codes(widget.validateCreate({ name: "abc", size: "m", points: points(300) }, owner))).toEqual([
      "/points limit",
    ]);
  });

  it("reports every error at once", () => {
    expect(create('"name": "A", "count": true, "tags": [], "origin": {}, "bogus": 1')).toEqual([
      "/name minLength",
      "/name pattern",
      "/count type",
      "/tags minItems",
      "/origin/x required",
      "/bogus unknown",
    ]);
  });
});
