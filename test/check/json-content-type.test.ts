import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { emitAll } from "../../generator/build.ts";
import { buildOpenApi } from "../../generator/emit/openapi/emit-openapi.ts";
import { isJsonMediaType } from "../../generator/model/json-media-type.ts";
import { compile } from "../../generator/pipeline.ts";
import { repoRoot } from "../helpers/paths.ts";

const fixture = relative(repoRoot, join(repoRoot, "test/fixtures/check/json-content-type-with-type"));

describe("a JSON contentType beside type (what aps build writes for @return(T, text/json))", () => {
  it("knows JSON media types, and only those", () => {
    for (const t of [
      "application/json",
      "text/json",
      "Text/JSON",
      "application/json; charset=utf-8",
      "application/vnd.example+json",
      "application/problem+json",
    ]) {
      expect(isJsonMediaType(t), t).toBe(true);
    }
    for (const t of [
      "text/plain",
      "text/csv",
      "application/jsonx",
      "application/json-seq",
      "application/octet-stream",
      "json",
      "+json",
      "",
    ]) {
      expect(isJsonMediaType(t), t).toBe(false);
    }
  });

  const { diagnostics, model } = compile([fixture], { cwd: repoRoot });
  const op = model.types.get("http://fixtures.example/widget/1.0")!.decl.operations.get("report")!;

  it("is read as the type alone, with a warning and no error", () => {
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(diagnostics.filter((d) => d.code === "APS098").map((d) => `${d.severity} ${d.line}`)).toEqual([
      "warning 10",
      "warning 13",
    ]);
    expect(op.response).toMatchObject({ typeText: "Report", redundantContentType: "text/json" });
    expect(op.response!.contentType).toBeUndefined();
    expect(op.parameters[0]!.contentType).toBeUndefined();
  });

  it("is JSON of the type in the client, the validators and OpenAPI", () => {
    const files = new Map(emitAll(model).map((f) => [f.path, f.content]));
    const client = [...files].find(
      ([p]) =>
        p.startsWith("client/") &&
        p.endsWith("/index.gen.ts") &&
        p !== "client/index.gen.ts" &&
        !p.startsWith("client/core/"),
    )![1];
    expect(client).toContain("params: WidgetReportParams): Promise<WidgetReportReply>");
    // The operation's types are declared once, in the types module: JSON of Report both ways.
    const types = [...files].find(
      ([p]) => p.startsWith("types/") && p.endsWith("index.gen.ts") && p !== "types/core/index.gen.ts",
    )![1];
    expect(types).toContain("export type WidgetReportReply = Report;");
    expect(types).toMatch(/export type WidgetReportParams = \{\n {2}filter: Report;\n\};/);
    expect(client).toContain("json: params.filter");
    expect(client).not.toMatch(/raw: \{ contentType/);
    const validators = [...files].find(
      ([p]) =>
        p.startsWith("validators/") &&
        p.endsWith("/index.gen.ts") &&
        p !== "validators/core/index.gen.ts" &&
        p !== "validators/index.gen.ts",
    )![1];
    expect(validators).toContain('checkWidgetReport(v, "/body", errors)');
    const post = (buildOpenApi(model) as any).paths["/aps/2/resources/{id}/report"].post;
    expect(Object.keys(post.responses["200"].content)).toEqual(["application/json"]);
    expect(post.responses["200"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/Widget.Report",
    });
    expect(post.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Widget.Report" });
  });

  it("a non-JSON contentType beside type stays error APS089", () => {
    const other = compile([relative(repoRoot, join(repoRoot, "test/fixtures/check/content-type-with-type"))], {
      cwd: repoRoot,
    });
    expect(other.diagnostics.filter((d) => d.severity === "error").map((d) => d.code)).toEqual(["APS089"]);
    expect(other.diagnostics.find((d) => d.code === "APS089")!.message).toContain('"text/csv"');
  });
});
