import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitAll } from "../../generator/build.ts";
import { formatDiagnostic } from "../../generator/diagnostics/diagnostic.ts";
import { loadInputs } from "../../generator/load/load-inputs.ts";
import { compile } from "../../generator/pipeline.ts";
import { corpusAvailable, corpusRoot, corpusSkipReason, repoRoot } from "../helpers/paths.ts";
import { typecheck } from "../helpers/typecheck.ts";

function findFiles(dir: string, match: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const abs = join(dir, e.name);
    if (e.isDirectory()) out.push(...findFiles(abs, match));
    else if (match(e.name)) out.push(abs);
  }
  return out.sort();
}

const appMetas = corpusAvailable ? findFiles(corpusRoot, (n) => n === "APP-META.xml") : [];
const schemaGens = corpusAvailable ? findFiles(corpusRoot, (n) => n.endsWith(".schema.gen")) : [];
const rel = (p: string) => relative(repoRoot, p);

describe.skipIf(!corpusAvailable)(`the corpus of real APS packages${corpusSkipReason}`, () => {
  it("has the files the issue names", () => {
    expect(appMetas).toHaveLength(19);
    expect(schemaGens).toHaveLength(7);
  });

  it.each(appMetas.map(rel))("loads %s", (path) => {
    const result = loadInputs([dirname(path)], { cwd: repoRoot, includeCore: false });
    const pkg = result.packages.find((p) => p.meta);
    expect(pkg?.meta?.services.length).toBeGreaterThan(0);
    // Missing schema files are diagnostics pointing into APP-META.xml, never a crash; an APS IDE
    // model.types beside services that did not load gets the APS016 warning that it is not read.
    for (const d of result.diagnostics) expect(d.file).toMatch(/APP-META\.xml$|\.schema\.gen$|model\.types$/);
    const ideModel = result.diagnostics.filter((d) => d.file.endsWith("model.types"));
    expect(ideModel.every((d) => d.code === "APS016" && d.severity === "warning")).toBe(true);
  });

  it("the 4 APS IDE model.types files are named as not read (APS016), one per package", () => {
    const ideModels = appMetas.filter((m) => existsSync(join(dirname(m), "model.types")));
    expect(ideModels).toHaveLength(4);
    const result = loadInputs(
      ideModels.map((m) => rel(dirname(m))),
      { cwd: repoRoot, includeCore: false },
    );
    expect(result.diagnostics.filter((d) => d.code === "APS016").map((d) => d.file.split("/").at(-1))).toEqual([
      "model.types",
      "model.types",
      "model.types",
      "model.types",
    ]);
  });

  it.each(schemaGens.map(rel))("parses %s as one declaration object", (path) => {
    const result = loadInputs([path], { cwd: repoRoot, includeCore: false });
    expect(result.diagnostics).toEqual([]);
    expect(result.packages[0]!.documents[0]!.doc.root?.type).toBe("object");
  });

  const packagesWithSchemas = [...new Set(schemaGens.map((p) => dirname(dirname(p))))].map(rel);

  it.each(packagesWithSchemas)("checks %s against the core types with no errors", (path) => {
    const { diagnostics, model } = compile([path], { cwd: repoRoot });
    const errors = diagnostics.filter((d) => d.severity === "error").map(formatDiagnostic);
    expect(errors).toEqual([]);
    const own = model.packages.find((p) => !p.bundled)!;
    expect(own.typeIds.length).toBeGreaterThan(0);
    // Core references resolve: no warning about core types being missing.
    expect(diagnostics.filter((d) => d.message.includes("aps-standard.org/types/core/"))).toEqual([]);
  });

  // Made in beforeAll, not while collecting: a skipped or filtered describe runs no afterAll.
  let outDir = "";
  beforeAll(() => {
    outDir = mkdtempSync(join(tmpdir(), "aps-gen-corpus-"));
  });
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it("builds the 7 corpus declarations to types that compile", () => {
    const { diagnostics, model } = compile(packagesWithSchemas, { cwd: repoRoot });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const files = emitAll(model);
    const written: string[] = [];
    for (const f of files) {
      const abs = join(outDir, f.path);
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, f.content);
      written.push(abs);
    }
    const corpusTypes = model.packages.filter((p) => !p.bundled).flatMap((p) => p.typeIds);
    expect(corpusTypes).toHaveLength(7);
    expect(typecheck(written)).toEqual([]);
  });
});
