import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import type { TypeValidator } from "../runtime/common/type-validator.ts";
import { emitValidators } from "./emit/validators/emit-validators.ts";
import { buildNameTable } from "./emit/types/name-table.ts";
import type { ApsModel } from "./model/model.ts";

const RUNTIME_COMMON = new URL("../runtime/common/", import.meta.url);
/** The runtime's modules end as this one does: `.ts` from the sources, `.js` in the compiled package. */
const RUNTIME_EXTENSION = import.meta.url.endsWith(".ts") ? ".ts" : ".js";

/** Validator modules compiled to JavaScript in a folder, ready to import. */
export interface ValidatorModules {
  /** The folder; remove it once the modules are imported. */
  readonly dir: string;
  /** One module per type (absolute paths); shared code is in chunks they import. */
  readonly files: readonly string[];
  /** Bytes of JavaScript written, chunks included. */
  readonly bytes: number;
}

/**
 * Compiles the validators of a model and loads them into this process: the same code
 * `aps-gen build` writes to generated/, with its imports of `runtime/common` pointing at this
 * installation's runtime. Used where the declarations are only known at run time
 * (`aps-gen validate` on any package, `serve`, a package imported while running).
 */
export async function loadValidators(model: ApsModel): Promise<ReadonlyMap<string, TypeValidator>> {
  const modules = await compileValidatorModules(model);
  try {
    return await importValidatorModules(modules.files);
  } finally {
    // Loaded modules stay in memory; the files are no longer needed.
    rmSync(modules.dir, { recursive: true, force: true });
  }
}

/**
 * Writes the validators of a model's types (of the packages named in `only`, or all) as plain
 * JavaScript modules into a fresh folder (`packages`: names as in `ModelPackage.name`). esbuild drops the types (no TypeScript loader is needed
 * at run time) and puts code several types share into chunks.
 *
 * One module per type, not one bundle: a 2000-type package gives ~45 MB of JavaScript, which a
 * single `import` parses and runs in one go, holding the event loop for a second or more, and
 * which a module transformer (vitest's) cannot even take as one string. Imported one after the
 * other, each module is a short step between which the process keeps serving. This needs no
 * live objects, so it can run in a worker thread (package-compile-worker.ts).
 */
export async function compileValidatorModules(model: ApsModel, packages?: ReadonlySet<string>): Promise<ValidatorModules> {
  const files = emitValidators(model, buildNameTable(model), { runtime: (name) => new URL(`${name}${RUNTIME_EXTENSION}`, RUNTIME_COMMON).href });
  const dir = mkdtempSync(join(tmpdir(), "aps-gen-validators-"));
  try {
    const src = join(dir, "src");
    const out = join(dir, "out");
    const typeModules: string[] = [];
    const wanted = packages && [...packages].map((name) => `validators/${name}/`);
    for (const f of files) {
      const path = join(src, f.path);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, f.content);
      // Each package's types are in validators/<package>/, beside its index (which only re-exports them).
      const isTypeModule = /^validators\/.+\/[^/]+\.gen\.ts$/.test(f.path) && !f.path.endsWith("/index.gen.ts");
      if (isTypeModule && (!wanted || wanted.some((w) => f.path.startsWith(w)))) typeModules.push(path);
    }
    const { build } = await import("esbuild");
    const result = await build({
      entryPoints: typeModules,
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      outdir: out,
      outbase: src,
      chunkNames: "chunks/[hash]",
      // ES modules whatever package.json is (or is not) above the folder.
      outExtension: { ".js": ".mjs" },
      external: ["file:*"],
      metafile: true,
      logLevel: "silent",
      legalComments: "none",
      minifyWhitespace: true,
    });
    const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
    const modules = typeModules.map((path) => join(out, relative(src, path)).replace(/\.ts$/, ".mjs"));
    // Where esbuild put each entry (outbase keeps the layout); a missing one is a bug here, not later.
    for (const m of modules) statSync(m);
    // The TypeScript sources are not needed any more; only `out` is imported.
    rmSync(src, { recursive: true, force: true });
    return { dir, files: modules, bytes };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Imports validator modules one after the other and gives the `TypeValidator` each exports, by
 * type id (of `only`, when given). `each` is told after each module.
 */
export async function importValidatorModules(files: readonly string[], only?: ReadonlySet<string>, each?: (done: number) => void): Promise<Map<string, TypeValidator>> {
  const validators = new Map<string, TypeValidator>();
  let done = 0;
  for (const file of files) {
    const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    for (const value of Object.values(mod)) {
      if (isTypeValidator(value) && (!only || only.has(value.typeId))) validators.set(value.typeId, value);
    }
    each?.(++done);
  }
  return validators;
}

function isTypeValidator(value: unknown): value is TypeValidator {
  const v = value as Partial<TypeValidator> | null;
  return typeof v === "object" && v !== null && typeof v.typeId === "string" && typeof v.validateCreate === "function" && typeof v.validateUpdate === "function";
}
