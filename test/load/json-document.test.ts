import { describe, expect, it } from "vitest";
import { DiagnosticSink } from "../../generator/diagnostics/diagnostic.ts";
import { memberValue, nodeLoc, parseJsonDocument, rawText } from "../../generator/load/json-document.ts";
import { createSourceFile, locAt } from "../../generator/load/source-file.ts";

function parse(text: string) {
  const sink = new DiagnosticSink();
  const file = createSourceFile("x.schema", text);
  return { doc: parseJsonDocument(file, sink), diagnostics: sink.items, file };
}

describe("parseJsonDocument", () => {
  it("accepts the // header lines that aps build writes and keeps positions", () => {
    const { doc, diagnostics, file } = parse('// generated\n// again\n{\n    "id": "x",\n    "name": "y"\n}');
    expect(diagnostics).toEqual([]);
    const name = memberValue(doc.root!, "name")!;
    expect(nodeLoc(file, name)).toEqual({ file: "x.schema", line: 5, col: 13 });
  });

  it("reports a syntax error at its line and column and yields no tree", () => {
    const { doc, diagnostics } = parse('{\n  "a": 1,\n  "b" 2\n}');
    expect(doc.root).toBeUndefined();
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: "APS001", line: 3, col: 7 });
    expect(diagnostics[0]!.message).toContain("colon expected");
  });

  it("rejects trailing commas, which real JSON parsers refuse", () => {
    expect(parse('{"a": 1,}').diagnostics[0]?.code).toBe("APS001");
  });

  it("reports every duplicate key at the repeated key, naming the first", () => {
    const { diagnostics } = parse('{\n "a": 1,\n "b": {"c": 1, "c": 2},\n "a": 3\n}');
    expect(diagnostics.map((d) => [d.code, d.line, d.col]).sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
      ["APS002", 3, 16],
      ["APS002", 4, 2],
    ]);
    expect(diagnostics.find((d) => d.line === 4)!.message).toContain("first at line 2:2");
  });

  it("keeps the exact text of 64-bit integers", () => {
    const { doc, file } = parse('{"q": 9223372036854775807}');
    expect(rawText(file, memberValue(doc.root!, "q")!)).toBe("9223372036854775807");
  });

  it("maps offsets to lines for \\n, \\r\\n and \\r line ends", () => {
    const file = createSourceFile("f", "a\r\nb\rc\nd");
    expect([0, 3, 5, 7].map((o) => locAt(file, o).line)).toEqual([1, 2, 3, 4]);
  });
});
