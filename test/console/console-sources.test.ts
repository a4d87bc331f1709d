import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { href, parseRoute } from "../../console/src/routes.ts";
import { repoRoot } from "../helpers/paths.ts";

const sources = join(repoRoot, "console/src");

/** Every .ts/.tsx file of the console, recursively. */
function consoleFiles(dir = sources): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? consoleFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

describe("console sources", () => {
  it("type-check with console/tsconfig.json (DOM, Preact's JSX, the client runtime they import)", () => {
    const config = ts.getParsedCommandLineOfConfigFile(
      join(repoRoot, "console/tsconfig.json"),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => expect.fail(ts.flattenDiagnosticMessageText(d.messageText, "\n")),
      },
    )!;
    const program = ts.createProgram(config.fileNames, config.options);
    const errors = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    expect(config.fileNames.length).toBeGreaterThan(5);
    expect(errors).toEqual([]);
  });

  it("never write HTML from values: no dangerouslySetInnerHTML, innerHTML, outerHTML, insertAdjacentHTML or document.write", () => {
    for (const file of consoleFiles()) {
      expect(readFileSync(file, "utf8"), file).not.toMatch(
        /dangerouslySetInnerHTML|\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write/,
      );
    }
  });
});

describe("console routes", () => {
  it("read back what href writes, type ids with / and : included", () => {
    const id = "http://example.com/types/mail/mailbox/1.0";
    expect(parseRoute(href.type(id))).toEqual({ page: "type", typeId: id });
    expect(parseRoute(href.resources(id, "eq(name,a/b)&sort(+name)"))).toEqual({
      page: "resources",
      typeId: id,
      query: "eq(name,a/b)&sort(+name)",
    });
    expect(parseRoute(href.resources())).toEqual({ page: "resources", typeId: "", query: "" });
    expect(parseRoute(href.resource("6c1b3a7e-1f0e-4c8a-9d3f-2b4a5c6d7e8f"))).toEqual({
      page: "resource",
      id: "6c1b3a7e-1f0e-4c8a-9d3f-2b4a5c6d7e8f",
    });
    expect(parseRoute(href.provision(id))).toEqual({ page: "provision", typeId: id });
    for (const page of ["types", "graph", "applications", "activity"] as const)
      expect(parseRoute(href[page]())).toEqual({ page });
    expect(parseRoute("")).toEqual({ page: "overview" });
    expect(parseRoute(href.overview())).toEqual({ page: "overview" });
  });

  it("take an unknown or malformed hash for a missing page", () => {
    for (const hash of ["#/nothing", "#/types/a/b", "#/types/%E0%A4%A", "#/graph/x", "#/resource"])
      expect(parseRoute(hash)).toEqual({ page: "missing", hash });
  });
});
