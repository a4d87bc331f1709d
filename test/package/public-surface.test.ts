/**
 * Issue 19: the package's public surface is an explicit list. `exports` names the entry points
 * (`aps-gen`, `/generator`, `/client`, `/connector`, `/controller`), two data files
 * (`/package.json` and the declaration schema editors use, `/schema/declaration.json`) and, one by
 * one, the runtime modules that generated code and the project `aps-gen init` writes import:
 * no wildcard, nothing of the controller's insides, and each entry's source and compiled files
 * where the build puts them. In process, from package.json and the files; the packed tarball is
 * test/package/packed.test.ts's, and test/cli/init.test.ts type-checks and starts the scaffold
 * against it.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../cli/main.ts";
import { repoRoot } from "../helpers/paths.ts";

type Conditions = Record<string, string>;
const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  exports: Record<string, Conditions | string>;
  types: string;
};
const exportKeys = Object.keys(pkg.exports);

/** Entries that are data files, exported as they are: package.json and the declaration schema editors use. */
const DATA_EXPORTS: Record<string, string> = {
  "./package.json": "./package.json",
  "./schema/declaration.json": "./schema/aps-declaration.schema.json",
};

/** Static, dynamic and re-export specifiers of the package (`aps-gen`, `aps-gen/...`). */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](aps-gen(?:\/[^"']*)?)["']/gm;

/** The export key a specifier asks for: `aps-gen` is ".", `aps-gen/x` is "./x". */
const exportKeyOf = (specifier: string) => (specifier === "aps-gen" ? "." : `.${specifier.slice("aps-gen".length)}`);

/** Every `aps-gen` specifier the TypeScript files under `dir` import, as export keys, with one file that imports it. */
function importedKeys(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (path: string) => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path)) if (name !== "node_modules") walk(join(path, name));
      return;
    }
    if (!path.endsWith(".ts")) return;
    for (const m of readFileSync(path, "utf8").matchAll(SPECIFIER))
      if (!found.has(exportKeyOf(m[1]!))) found.set(exportKeyOf(m[1]!), path);
  };
  walk(dir);
  return found;
}

let scaffold = "";
let generated = new Map<string, string>();
let scaffolded = new Map<string, string>();
beforeAll(async () => {
  generated = importedKeys(join(repoRoot, "generated"));
  scaffold = join(mkdtempSync(join(tmpdir(), "aps-surface-")), "connector");
  const err: string[] = [];
  const code = await main(
    ["init", scaffold, "--package", "types/examples/cloudmail"],
    { out: () => {}, err: (l) => err.push(l) },
    repoRoot,
  );
  if (code !== 0) throw new Error(`aps-gen init failed: ${err.join("\n")}`);
  scaffolded = importedKeys(scaffold);
}, 60_000);
afterAll(() => {
  if (scaffold) rmSync(join(scaffold, ".."), { recursive: true, force: true });
});

describe("the package's public surface", () => {
  it("finds the imports it checks (so the checks below can fail)", () => {
    expect(generated.has("./runtime/common/types")).toBe(true);
    expect(generated.has("./runtime/client/client")).toBe(true);
    expect(generated.has("./runtime/connector/app")).toBe(true);
    expect(scaffolded.has("./runtime/connector/serve")).toBe(true);
    expect(scaffolded.has("./runtime/connector/replies")).toBe(true);
  });

  it("exports every aps-gen specifier that generated code and the init scaffold import", () => {
    const missing = [...new Map([...generated, ...scaffolded])]
      .filter(([key]) => !(key in pkg.exports))
      .map(([key, file]) => `${key} (imported by ${file})`);
    expect(missing).toEqual([]);
  });

  it("exports no runtime module that neither generated code nor the scaffold imports", () => {
    const surplus = exportKeys.filter(
      (key) => key.startsWith("./runtime/") && !generated.has(key) && !scaffolded.has(key),
    );
    expect(surplus).toEqual([]);
  });

  it("has no wildcard entry and nothing of the controller but its entry point", () => {
    const targets = (value: Conditions | string) => (typeof value === "string" ? [value] : Object.values(value));
    expect(
      Object.entries(pkg.exports).filter(
        ([key, value]) => key.includes("*") || targets(value).some((t) => t.includes("*")),
      ),
    ).toEqual([]);
    expect(exportKeys.filter((key) => key.startsWith("./runtime/controller/"))).toEqual([]);
    const intoController = Object.entries(pkg.exports).filter(([, value]) =>
      targets(value).some((t) => /\/runtime\/controller\//.test(t)),
    );
    expect(intoController.map(([key]) => key)).toEqual(["./controller"]);
  });

  it("gives each entry a source that exists, and the declarations and JavaScript the build writes for it", () => {
    const wrong: string[] = [];
    for (const [key, value] of Object.entries(pkg.exports)) {
      if (key in DATA_EXPORTS) {
        if (value !== DATA_EXPORTS[key] || !existsSync(join(repoRoot, value)))
          wrong.push(`${key}: ${JSON.stringify(value)}`);
        continue;
      }
      if (typeof value === "string") {
        wrong.push(`${key}: a bare path, not the three conditions`);
        continue;
      }
      // Order matters: Node and tsc take the first condition that applies, so the source one
      // (this repository's) comes first and "default" last.
      if (Object.keys(value).join() !== "aps-gen-source,types,default")
        wrong.push(`${key}: conditions ${Object.keys(value).join()}`);
      const source = value["aps-gen-source"] ?? "";
      const stem = source.replace(/^\.\//, "").replace(/\.ts$/, "");
      // tsconfig.build.json compiles cli/, generator/ and runtime/ into dist/ with the same layout.
      if (!/^\.\/(cli|generator|runtime)\/.+\.ts$/.test(source) || !existsSync(join(repoRoot, source)))
        wrong.push(`${key}: source ${source} is not a source file`);
      if (value.types !== `./dist/${stem}.d.ts`)
        wrong.push(`${key}: types ${value.types}, the build writes ./dist/${stem}.d.ts`);
      if (value.default !== `./dist/${stem}.js`)
        wrong.push(`${key}: default ${value.default}, the build writes ./dist/${stem}.js`);
      if (key.startsWith("./runtime/") && source !== `${key}.ts`)
        wrong.push(`${key}: source ${source}, not the module the subpath names`);
    }
    expect(wrong).toEqual([]);
    expect(pkg.types).toBe((pkg.exports["."] as Conditions).types);
  });
});
