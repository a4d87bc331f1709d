import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/paths.ts";

/**
 * Issue 19: the layering docs/architecture.md's "Repository layout" states, kept by a scan of every relative
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

/** Every module `file` loads, directly or not (type-only imports included: the scan does not tell them apart). */
function reachable(file: string): string[] {
  const seen = new Set<string>();
  const visit = (f: string) => {
    for (const t of graph.get(f) ?? []) {
      if (seen.has(t)) continue;
      seen.add(t);
      visit(t);
    }
  };
  visit(file);
  return [...seen];
}

const edges = (from: RegExp, to: RegExp) =>
  [...graph].flatMap(([file, targets]) =>
    from.test(file) ? targets.filter((t) => to.test(t)).map((t) => `${file} -> ${t}`) : [],
  );

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

  it("cli/ imports the generator only through its entries, the modules at generator/'s top level, each of which index.ts re-exports", () => {
    expect(edges(/^cli\//, /^generator\/.+\//)).toEqual([]);
    const entries = [...graph.keys()].filter((f) => /^generator\/[^/]+\.ts$/.test(f) && f !== "generator/index.ts");
    expect(entries.length).toBeGreaterThan(2);
    expect(entries.filter((e) => !graph.get("generator/index.ts")!.includes(e))).toEqual([]);
  });

  it("the lighter entries load no emitter: diagnostics.ts only diagnostics/, pipeline.ts nothing of emit/", () => {
    expect(reachable("generator/diagnostics.ts").filter((f) => !/^generator\/diagnostics(\/|\.ts$)/.test(f))).toEqual(
      [],
    );
    expect(reachable("generator/pipeline.ts").filter((f) => f.startsWith("generator/emit/"))).toEqual([]);
    // So that the two checks above can fail: index.ts does reach the emitters.
    expect(reachable("generator/index.ts").some((f) => f.startsWith("generator/emit/"))).toBe(true);
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

/**
 * The controller's features answer with values or throw its typed errors (runtime/controller/
 * support/errors.ts); the HTTP layer alone picks statuses and writes replies: app.ts, routes/,
 * the middleware of auth/ and observability/, the HTTP helpers of support/ and start/ (listening).
 */
describe("the controller's services return no HTTP reply", () => {
  const HTTP_LAYER = /^runtime\/controller\/(app\.ts$|(routes|auth|observability|support|start)\/)/;
  /** Hono itself (its routers excepted: operations/operation-router.ts matches paths with them), a Response, a Hono context's reply, a status literal, the JSON reply helpers. */
  const REPLY =
    /from\s+["'](?:hono(?!\/router)[^"']*|@hono\/[^"']*)["']|new Response\(|\bc\.(?:json|body|text|html)\(|\bstatus:\s*[1-5]\d\d\b|\bsend(?:Json|List)\(|\bPromise<Response>/;
  const replies = (files: readonly string[]) =>
    files.flatMap((file) =>
      readFileSync(join(repoRoot, file), "utf8")
        .split("\n")
        .flatMap((line, i) => (REPLY.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
  const controller = sources("runtime/controller");

  it("no module of a feature (resources, relations, operations, events, ...) or a *-service.ts names a status or builds a reply", () => {
    const services = controller.filter((f) => !HTTP_LAYER.test(f));
    expect(services).toContain("runtime/controller/relations/relation-service.ts");
    expect(services).toContain("runtime/controller/application-service.ts");
    expect(replies(services)).toEqual([]);
  });

  it("finds the replies of the HTTP layer (so the rule above can fail)", () => {
    const found = replies(controller.filter((f) => HTTP_LAYER.test(f)));
    expect(found.some((l) => l.startsWith("runtime/controller/routes/resources.ts:") && l.includes("sendJson(c"))).toBe(
      true,
    );
    expect(found.some((l) => l.includes('from "hono"'))).toBe(true);
    expect(found.some((l) => l.includes("new Response("))).toBe(true);
    // What relations/relation-service.ts returned before its statuses moved to routes/resources.ts.
    expect(
      REPLY.test(
        'if (rest === "/aps/links" && method === "GET") return { status: 200, ...(await this.allLinks(caller, id)) };',
      ),
    ).toBe(true);
    expect(REPLY.test('import type { Result } from "hono/router";')).toBe(false);
  });
});
