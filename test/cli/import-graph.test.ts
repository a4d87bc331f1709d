import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { modulesLoaded, SERVER_ONLY } from "../helpers/import-trace.ts";
import { repoRoot } from "../helpers/paths.ts";

/**
 * Issue 18: each command loads only what it needs, and the client has no server dependency.
 * A real process is traced (every module it resolves), so a static import that pulls the
 * controller in anywhere on the path fails these tests.
 */
const bin = join(repoRoot, "bin/aps-gen.js");
const serverModules = (urls: readonly string[]) => urls.filter((u) => SERVER_ONLY.test(u));

describe("what each command loads", () => {
  it("--help loads yargs and the command definitions, none of the generator's work, no server module", () => {
    const r = modulesLoaded([bin, "--help"]);
    expect(r.status, r.output).toBe(0);
    expect(serverModules(r.urls)).toEqual([]);
    expect(
      r.urls.filter((u) => /\/generator\/(load|model|emit)\/|node_modules\/(php-parser|ts-morph|handlebars)\//.test(u)),
    ).toEqual([]);
    expect(r.urls.some((u) => u.includes("node_modules/yargs/"))).toBe(true);
  });

  it("check loads the loader and checker, no emitter and no server module", () => {
    const r = modulesLoaded([bin, "check", "--types", "types/examples/cloudmail"]);
    expect(r.status, r.output).toBe(0);
    expect(serverModules(r.urls)).toEqual([]);
    expect(
      r.urls.filter((u) => /\/generator\/emit\/|node_modules\/(php-parser|ts-morph|handlebars)\//.test(u)),
    ).toEqual([]);
    expect(r.urls.some((u) => u.includes("/generator/check/"))).toBe(true);
  });

  it("serve does load the controller (so the checks above can fail)", () => {
    // An unreachable database: the controller loads, then the start stops at once, writing nothing here.
    const data = mkdtempSync(join(tmpdir(), "aps-import-graph-"));
    const r = modulesLoaded([
      bin,
      "serve",
      "--types",
      "types/examples/cloudmail",
      "--data",
      data,
      "--database-url",
      "postgres://nobody@127.0.0.1:1/none",
    ]);
    rmSync(data, { recursive: true, force: true });
    expect(r.status, r.output).toBe(2);
    expect(serverModules(r.urls).length).toBeGreaterThan(0);
  });
});

describe("the light client", () => {
  it("aps-gen/client, a generated client module and the client index load no server dependency", () => {
    const script = join(repoRoot, "test/fixtures/light-client/script.mts");
    const r = modulesLoaded(["--import", "tsx/esm", "--conditions=aps-gen-source", script], repoRoot);
    expect(r.status, r.output).toBe(0);
    expect(r.urls.some((u) => u.includes("/runtime/client/"))).toBe(true);
    expect(r.urls.some((u) => u.endsWith("/generated/client/index.gen.ts"))).toBe(true);
    expect(serverModules(r.urls)).toEqual([]);
  });
});
