import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/paths.ts";

/**
 * Issue 19: the layering README's "Repository layout" states, kept by a scan of every relative
 * import (static, dynamic and type-only) of the hand-written sources.
 */
function sources(dir: string): string[] {
  return readdirSync(join(repoRoot, dir)).flatMap((name) => {
    const rel = join(dir, name);
    return statSync(join(repoRoot, rel)).isDirectory() ? sources(rel) : rel.endsWith(".ts") ? [rel] : [];
  });
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm;

/** Every module's relative imports, as repository paths. */
const graph = new Map<string, string[]>(
  ["cli", "generator", "runtime"].flatMap(sources).map((file) => {
    const text = readFileSync(join(repoRoot, file), "utf8");
    const targets = [...text.matchAll(IMPORT)].map((m) => relative(repoRoot, resolve(repoRoot, dirname(file), m[1]!)));
    return [file, targets] as const;
  }),
);

const edges = (from: RegExp, to: RegExp) => [...graph].flatMap(([file, targets]) => (from.test(file) ? targets.filter((t) => to.test(t)).map((t) => `${file} -> ${t}`) : []));

describe("import rules", () => {
  it("finds the imports it checks (so the rules below can fail)", () => {
    expect(graph.size).toBeGreaterThan(150);
    expect(edges(/^cli\//, /^generator\//).length).toBeGreaterThan(0);
    expect(edges(/^cli\//, /^runtime\/controller\//).length).toBeGreaterThan(0);
  });

  it("generator/ imports nothing of runtime/ but runtime/common, and nothing of cli/", () => {
    expect(edges(/^generator\//, /^runtime\/(?!common\/)|^cli\//)).toEqual([]);
  });

  it("runtime/ never imports generator/ or cli/; the client and common sides never import the controller", () => {
    expect(edges(/^runtime\//, /^(generator|cli)\//)).toEqual([]);
    expect(edges(/^runtime\/(client|common)\//, /^runtime\/(controller|connector)\//)).toEqual([]);
  });

  it("load/ and model/ stand on diagnostics/, not on check/ or emit/", () => {
    expect(edges(/^generator\/(load|model|diagnostics)\//, /^generator\/(check|emit)\//)).toEqual([]);
    expect(edges(/^generator\/diagnostics\//, /^generator\/(?!diagnostics\/)/)).toEqual([]);
  });

  it("has no import cycle", () => {
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const path: string[] = [];
    const visit = (file: string) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") {
        cycles.push([...path.slice(path.indexOf(file)), file].join(" > "));
        return;
      }
      state.set(file, "open");
      path.push(file);
      for (const t of graph.get(file) ?? []) visit(t);
      path.pop();
      state.set(file, "done");
    };
    for (const file of graph.keys()) visit(file);
    expect(cycles).toEqual([]);
  });
});
