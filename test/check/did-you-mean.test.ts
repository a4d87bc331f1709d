import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../generator/diagnostics/diagnostic.ts";
import { closestMatch } from "../../generator/diagnostics/did-you-mean.ts";
import { compile } from "../../generator/pipeline.ts";

const dir = mkdtempSync(join(tmpdir(), "aps-did-you-mean-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Compiles one declaration written to a temporary file; returns the diagnostic lines. */
function check(name: string, declaration: object): string[] {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(declaration, null, 4));
  return compile([path], { cwd: dir }).diagnostics.map(formatDiagnostic);
}

const base = {
  apsVersion: "2.0",
  name: "widget",
  id: "http://fixtures.example/widget/1.0",
  implements: ["http://aps-standard.org/types/core/resource/1.0"],
};

describe("did you mean", () => {
  it("finds the same word in other case, or one a few edits away, and nothing for a far word", () => {
    expect(closestMatch("maxlength", ["minLength", "maxLength"])).toBe("maxLength");
    expect(closestMatch("requried", ["readonly", "required"])).toBe("required");
    expect(closestMatch("vendorNote", ["required", "readonly", "title"])).toBeUndefined();
    // Short words allow one edit at most: "ab" is not a misspelling of "id".
    expect(closestMatch("ab", ["id"])).toBeUndefined();
  });

  it("a misspelt attribute is an error naming the attribute meant; an unknown one stays a warning", () => {
    const lines = check("a.schema", {
      ...base,
      properties: { label: { type: "string", requried: true, vendorNote: "x" } },
    });
    expect(lines.find((l) => l.includes("requried"))).toMatch(
      / - error APS031: property "label": "requried" is not an attribute; did you mean "required"\?/,
    );
    expect(lines.find((l) => l.includes("vendorNote"))).toMatch(/ - warning APS026: /);
  });

  it("suggests the type a misspelt type name meant", () => {
    const lines = check("b.schema", {
      ...base,
      properties: { size: { type: "integr" } },
      structures: { Limits: { type: "object", properties: {} } },
    });
    expect(lines.find((l) => l.includes("APS042"))).toMatch(/unknown type "integr"; did you mean "integer"\?/);
    const structure = check("c.schema", {
      ...base,
      properties: { size: { type: "Qoutas" } },
      structures: { Quotas: { type: "object", properties: {} } },
    });
    expect(structure.find((l) => l.includes("APS042"))).toMatch(/did you mean "Quotas"\?/);
  });

  it("suggests the type id a misspelt implements id meant", () => {
    const lines = check("d.schema", { ...base, implements: ["http://aps-standard.org/types/core/resorce/1.0"] });
    expect(lines.find((l) => l.includes("APS025"))).toMatch(
      /did you mean "http:\/\/aps-standard\.org\/types\/core\/resource\/1\.0"\?/,
    );
  });

  it("carries each did-you-mean as a machine-readable suggestion, and none where nothing is close", () => {
    const write = (name: string, declaration: object) => {
      writeFileSync(join(dir, name), JSON.stringify(declaration, null, 4));
      return compile([join(dir, name)], { cwd: dir }).diagnostics;
    };
    const attribute = write("e.schema", {
      ...base,
      properties: { label: { type: "string", requried: true, vendorNote: "x" } },
    });
    expect(attribute.find((d) => d.code === "APS031")?.suggestion).toEqual({
      written: "requried",
      replacement: "required",
    });
    expect(attribute.find((d) => d.code === "APS026")).not.toHaveProperty("suggestion");
    const type = write("f.schema", { ...base, properties: { size: { type: "integr" }, far: { type: "zzzzzzzz" } } });
    expect(type.filter((d) => d.code === "APS042").map((d) => d.suggestion)).toEqual([
      { written: "integr", replacement: "integer" },
      undefined,
    ]);
    const parent = write("g.schema", { ...base, implements: ["http://aps-standard.org/types/core/resorce/1.0"] });
    expect(parent.find((d) => d.code === "APS025")?.suggestion).toEqual({
      written: "http://aps-standard.org/types/core/resorce/1.0",
      replacement: "http://aps-standard.org/types/core/resource/1.0",
    });
  });
});
