import { beforeAll, describe, expect, it } from "vitest";
import { convertParameter } from "../../runtime/common/parameter-text.ts";
import type { TypeValidator } from "../../runtime/common/type-validator.ts";
import { codes, widgetValidators } from "./widgets.ts";

let widget: TypeValidator;
beforeAll(async () => {
  ({ widget } = await widgetValidators());
});

describe("convertParameter (docs/aps/rest-api.md: path and query values arrive as text)", () => {
  it.each([
    ["42", "integer", 42],
    ["-7", "long", -7],
    ["+7", "integer", 7],
    ["9223372036854775807", "long", 9223372036854775807n],
    ["-9223372036854775808", "integer", -9223372036854775808n],
    ["1.5", "number", 1.5],
    ["-2e3", "number", -2000],
    [".5", "number", 0.5],
    ["true", "boolean", true],
    ["false", "boolean", false],
    [" x ", "string", " x "],
    ["", "string", ""],
  ] as const)("%j as %s is %s", (text, type, value) => {
    expect(convertParameter(text, type)).toEqual({ ok: true, value });
  });

  it.each([
    ["4.2", "integer", "type"],
    ["", "integer", "type"],
    ["0x10", "long", "type"],
    ["9223372036854775808", "long", "range"],
    ["-9223372036854775809", "integer", "range"],
    ["abc", "number", "type"],
    ["1e999", "number", "type"],
    ["Infinity", "number", "type"],
    ["", "number", "type"],
    ["yes", "boolean", "type"],
    ["TRUE", "boolean", "type"],
  ] as const)("%j as %s is a %s error", (text, type, code) => {
    const r = convertParameter(text, type);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.code).toBe(code);
  });
});

describe("operation parameter parsers", () => {
  const resize = () => widget.operations.resize!;

  it("converts path and query values and checks the body structure", () => {
    const r = resize()({
      path: { unit: "cm" },
      query: { factor: "1.5", steps: "9223372036854775807", dry: "true" },
      body: { x: 1 },
    });
    expect(r).toEqual({
      ok: true,
      params: { unit: "cm", factor: 1.5, steps: 9223372036854775807n, dry: true, to: { x: 1 } },
    });
  });

  it("reports every bad or missing parameter at once, as pointers into path, query and body", () => {
    const r = resize()({ path: {}, query: { steps: "1.5", dry: "maybe" }, body: { y: "2" } });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(codes(r.errors)).toEqual([
        "/path/unit required",
        "/query/factor required",
        "/query/steps type",
        "/query/dry type",
        "/body/y type",
        "/body/x required",
      ]);
  });

  it("requires a required body", () => {
    const r = resize()({ path: { unit: "cm" }, query: { factor: "2" } });
    expect(r.ok ? [] : codes(r.errors)).toEqual(["/body required"]);
  });

  it("passes a body with a declared contentType through untouched", () => {
    const bytes = new Uint8Array([137, 80, 78, 71]);
    expect(widget.operations.upload!({ path: {}, query: {}, body: bytes })).toEqual({
      ok: true,
      params: { image: bytes },
    });
    const missing = widget.operations.upload!({ path: {}, query: {} });
    expect(missing.ok ? [] : codes(missing.errors)).toEqual(["/body required"]);
  });

  it("offers no parser for base operations", () => {
    expect(Object.keys(widget.operations).sort()).toEqual(["resize", "upload"]);
  });
});
