import { describe, expect, it } from "vitest";
import { parseJsonText, stringifyJson } from "../../runtime/common/json-text.ts";

describe("parseJsonText: JSON without losing 64-bit integers", () => {
  it("keeps integers beyond 2^53 exact as bigint, and only those", () => {
    const v = parseJsonText(
      '{"max": 9223372036854775807, "min": -9223372036854775808, "safe": 9007199254740991, "unsafe": 9007199254740993, "f": 1.5, "e": 1e3}',
    );
    expect(v).toEqual({
      max: 9223372036854775807n,
      min: -9223372036854775808n,
      safe: 9007199254740991,
      unsafe: 9007199254740993n,
      f: 1.5,
      e: 1000,
    });
  });

  it("parses like JSON.parse otherwise, even on the exact path", () => {
    const text = '{"a": [1, "x", null, true], "s": "1234567890123456789", "a": 2, "n": {"m": 12345678901234567890}}';
    expect(parseJsonText(text)).toEqual({ a: 2, s: "1234567890123456789", n: { m: 12345678901234567890n } });
    expect(parseJsonText('"x"')).toBe("x");
  });

  it("keeps doubles printed in full and long fractions as JSON.parse reads them, and refuses an integer part past the double range", () => {
    const text =
      '{"score": 71.71428571428571, "x": 1234567890123456.5, "y": 1234567890123456e2, "z": -0.12345678901234567, "big": [9007199254740993]}';
    expect(parseJsonText(text)).toEqual({
      score: 71.71428571428571,
      x: 1234567890123456.5,
      y: 123456789012345600,
      // biome-ignore lint/correctness/noPrecisionLoss: the nearest double is what JSON.parse gives for this fraction too.
      z: -0.12345678901234567,
      big: [9007199254740993n],
    });
    expect(() => parseJsonText(`{"a": ${"9".repeat(309)}.5}`)).toThrow(SyntaxError);
  });

  it("throws SyntaxError on malformed text, on both paths", () => {
    expect(() => parseJsonText("{")).toThrow(SyntaxError);
    expect(() => parseJsonText('{"a": 12345678901234567890')).toThrow();
  });
});

describe("stringifyJson", () => {
  it("writes bigints as exact JSON integers and round-trips", () => {
    const text = stringifyJson({ a: 9223372036854775807n, b: [-9223372036854775808n, 1.5], c: "x" });
    expect(text).toBe('{"a":9223372036854775807,"b":[-9223372036854775808,1.5],"c":"x"}');
    expect(parseJsonText(text)).toEqual({ a: 9223372036854775807n, b: [-9223372036854775808n, 1.5], c: "x" });
  });

  it("matches JSON.stringify when there is no bigint", () => {
    const v = { a: [1, null, { b: "c" }] };
    expect(stringifyJson(v, 2)).toBe(JSON.stringify(v, null, 2));
  });
});
