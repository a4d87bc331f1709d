import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { TypeValidator } from "../runtime/common/type-validator.ts";
import { emitValidators } from "../generator/emit/validators/emit-validators.ts";
import { buildNameTable } from "../generator/emit/core/name-table.ts";
import type { ApsModel } from "../generator/model/model.ts";

const RUNTIME_COMMON = new URL("../runtime/common/", import.meta.url);
/** The runtime's modules end as this one does: `.ts` from the sources, `.js` in the compiled package. */
const RUNTIME_EXTENSION = import.meta.url.endsWith(".ts") ? ".ts" : ".js";

/** The validators of one type as a CommonJS script: plain JavaScript, text only. */
export interface ValidatorScript {
  /** Where it came from (`validators/<package>/<type>.gen.js`), for stack traces. */
  readonly name: string;
  readonly code: string;
}

/**
 * Compiles the validators of a model and loads them into this process: the same code
 * `aps-gen build` writes to generated/, with its imports of `runtime/common` pointing at this
 * installation's runtime. Used where the declarations are only known at run time
 * (`aps-gen validate` on any package, `serve`, a package imported while running).
 */
export async function loadValidators(model: ApsModel): Promise<ReadonlyMap<string, TypeValidator>> {
  return instantiateValidatorScripts(await compileValidatorScripts(model));
}

/**
 * The validators of a model's types (of the packages named in `packages`, as in
 * `ModelPackage.name`, or all) as one script per type. esbuild drops the types (no TypeScript
 * loader is needed at run time) and bundles what a type's module imports from other types.
 *
 * One script per type, as text, not one module: a 2000-type package gives ~33 MB of JavaScript,
 * which a single `import` parses and runs in one go, holding the event loop for a second or
 * more (and which vitest's module transform cannot even take as one string). Text needs no live
 * objects, so this runs in a worker thread (package-compile-worker.ts); the thread that uses the
 * validators then compiles the scripts a few at a time (instantiateValidatorScripts), serving
 * requests in between, with no module loader (nor a TypeScript loader's hooks) in the way.
 */
export async function compileValidatorScripts(model: ApsModel, packages?: ReadonlySet<string>): Promise<ValidatorScript[]> {
  const files = emitValidators(model, buildNameTable(model), { runtime: (name) => new URL(`${name}${RUNTIME_EXTENSION}`, RUNTIME_COMMON).href });
  const dir = mkdtempSync(join(tmpdir(), "aps-gen-validators-"));
  try {
    const typeModules: string[] = [];
    const wanted = packages && [...packages].map((name) => `validators/${name}/`);
    for (const f of files) {
      const path = join(dir, f.path);
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
      format: "cjs",
      platform: "node",
      target: "node20",
      outdir: join(dir, "out"),
      outbase: dir,
      external: ["file:*"],
      write: false,
      logLevel: "silent",
      legalComments: "none",
      minifyWhitespace: true,
    });
    return result.outputFiles.map((o) => ({ name: relative(join(dir, "out"), o.path).split("\\").join("/"), code: o.text }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** How long instantiating may hold the event loop before it lets other work run (ms). */
const SLICE_MS = 5;

/**
 * Runs validator scripts and gives the `TypeValidator` each exports, by type id (of `only`, when
 * given). The `runtime/common` modules they require are imported as they come up (normally
 * already loaded: the controller uses them too). Between slices of a few milliseconds the event
 * loop runs.
 */
export async function instantiateValidatorScripts(scripts: readonly ValidatorScript[], only?: ReadonlySet<string>): Promise<Map<string, TypeValidator>> {
  const runtime = new Map<string, unknown>();
  const requireRuntime = (specifier: string) => {
    if (!runtime.has(specifier)) throw new Error(`a validator requires ${specifier}, which is not part of aps-gen's runtime`);
    return runtime.get(specifier);
  };
  const validators = new Map<string, TypeValidator>();
  let slice = performance.now();
  for (const s of scripts) {
    // Script by script (33 MB of them at once would be one long scan).
    for (const m of s.code.matchAll(/require\("(file:[^"]+)"\)/g)) if (!runtime.has(m[1]!)) runtime.set(m[1]!, await import(m[1]!));
    const module = { exports: {} as Record<string, unknown> };
    // Generated from checked declarations by this generator, as `aps-gen build` writes it: code this installation trusts like its own.
    new Function("module", "exports", "require", `${s.code}\n//# sourceURL=aps-gen:${s.name}`)(module, module.exports, requireRuntime);
    for (const value of Object.values(module.exports)) {
      if (isTypeValidator(value) && (!only || only.has(value.typeId))) validators.set(value.typeId, value);
    }
    if (performance.now() - slice > SLICE_MS) {
      await yieldToEventLoop();
      slice = performance.now();
    }
  }
  return validators;
}

function isTypeValidator(value: unknown): value is TypeValidator {
  const v = value as Partial<TypeValidator> | null;
  return typeof v === "object" && v !== null && typeof v.typeId === "string" && typeof v.validateCreate === "function" && typeof v.validateUpdate === "function";
}
