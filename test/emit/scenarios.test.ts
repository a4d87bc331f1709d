import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { emitAll } from "../../generator/build.ts";
import type { Diagnostic } from "../../generator/diagnostics/diagnostic.ts";
import { memoryHost } from "../../generator/host.ts";
import { compile } from "../../generator/pipeline.ts";
import { repoRoot } from "../helpers/paths.ts";
import { SNIPPET_FILES, scenarioSnippets, type SnippetFile } from "./scenario-snippets.ts";

/**
 * Emitter scenario goldens: each folder of test/emit/scenarios/ is a small package declaring one
 * feature, and its expected/ folder holds what every emitter makes of it (scenario-snippets.ts
 * says which part). A mismatch fails with a diff; `npx vitest run test/emit/scenarios.test.ts -u`
 * rewrites them all after an intended change, then review the diff. A new scenario is a folder
 * with APP-META.xml, schemas/app.schema (the application root every package needs) and the
 * declarations of its feature; its first run writes expected/.
 */
const scenariosDir = join(repoRoot, "test", "emit", "scenarios");
const scenarios = readdirSync(scenariosDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

it("finds the scenarios", () => {
  expect(scenarios.length).toBeGreaterThanOrEqual(6);
});

describe.each(scenarios)("scenario %s", (scenario) => {
  const dir = join(scenariosDir, scenario);
  let errors: Diagnostic[] = [];
  let snippets = new Map<SnippetFile, string>();

  beforeAll(() => {
    // cwd is the scenarios folder, so the banners name `<scenario>/schemas/...` wherever the checkout is.
    const { model, diagnostics } = compile([dir], { cwd: scenariosDir });
    errors = diagnostics.filter((d) => d.severity === "error");
    const host = memoryHost();
    host.apply(emitAll(model));
    snippets = scenarioSnippets(model, host.files);
  });

  it("declares valid types", () => {
    expect(errors).toEqual([]);
  });

  it.each(SNIPPET_FILES)("%s matches its golden file", async (file) => {
    await expect(snippets.get(file)).toMatchFileSnapshot(join(dir, "expected", file));
  });

  it("has no golden file that no emitter writes", () => {
    const expected = join(dir, "expected");
    const stray = existsSync(expected)
      ? readdirSync(expected).filter((name) => !(SNIPPET_FILES as readonly string[]).includes(name))
      : [];
    expect(stray).toEqual([]);
  });
});
