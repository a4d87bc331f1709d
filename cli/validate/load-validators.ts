import { posix } from "node:path";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { TypeValidator } from "../../runtime/common/type-validator.ts";
import { runTimeValidatorModules, type ApsModel } from "../../generator/index.ts";

const RUNTIME_COMMON = new URL("../../runtime/common/", import.meta.url);
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
 * The validators of a model's types as scripts, one per type's module: esbuild drops the
 * types of each module on its own (no TypeScript loader is needed at run time, and nothing is
 * bundled), and instantiateValidatorScripts links the modules' `require`s to each other.
 *
 * Text, not modules: text needs no live objects, so this runs in a worker thread for a package
 * imported while serving (package-compile-worker.ts); the thread that uses the validators then
 * compiles the scripts a few at a time, serving requests in between, with no module loader (nor
 * a TypeScript loader's hooks) in the way. (Bundling each type's module with what it imports
 * gave a 2000-type package ~33 MB of scripts, each copying the modules it shares with others.)
 */
export async function compileValidatorScripts(model: ApsModel): Promise<ValidatorScript[]> {
  // A module per type, not per package as `aps-gen build` writes them: a script is run in one go,
  // and a 2000-type package's would hold the thread for a second or more.
  const modules = runTimeValidatorModules(model, (name) => new URL(`${name}${RUNTIME_EXTENSION}`, RUNTIME_COMMON).href);
  const { transform } = await import("esbuild");
  return Promise.all(
    modules.map(async (f) => {
      const name = f.path.replace(/\.ts$/, ".js");
      const { code } = await transform(f.content, {
        loader: "ts",
        format: "cjs",
        platform: "node",
        target: "node20",
        sourcefile: name,
        legalComments: "none",
        minifyWhitespace: true,
        logLevel: "silent",
      });
      return { name, code };
    }),
  );
}

/** How long instantiating may hold the event loop before it lets other work run (ms). */
const SLICE_MS = 5;

/**
 * Runs validator scripts and gives the `TypeValidator` each exports, by type id (of `only`, when
 * given). A script's `require` of another generated module runs that script first (once); the
 * `runtime/common` modules they require are imported beforehand (normally already loaded: the
 * controller uses them too). Between slices of a few milliseconds the event loop runs.
 */
export async function instantiateValidatorScripts(
  scripts: readonly ValidatorScript[],
  only?: ReadonlySet<string>,
): Promise<Map<string, TypeValidator>> {
  const byName = new Map(scripts.map((s) => [s.name, s]));
  const runtime = new Map<string, unknown>();
  const loaded = new Map<string, { exports: Record<string, unknown> }>();
  // CommonJS semantics: a module is cached before it runs, so a cycle sees the exports so far.
  const load = (name: string): Record<string, unknown> => {
    const cached = loaded.get(name);
    if (cached) return cached.exports;
    const script = byName.get(name);
    if (!script) throw new Error(`a validator requires ${name}, which was not compiled with it`);
    const module = { exports: {} as Record<string, unknown> };
    loaded.set(name, module);
    const require = (specifier: string) => {
      if (!specifier.startsWith(".")) {
        if (!runtime.has(specifier))
          throw new Error(`a validator requires ${specifier}, which is not part of aps-gen's runtime`);
        return runtime.get(specifier);
      }
      return load(posix.join(posix.dirname(name), specifier));
    };
    // Generated from checked declarations by this generator, as `aps-gen build` writes it: code this installation trusts like its own.
    new Function("module", "exports", "require", `${script.code}\n//# sourceURL=aps-gen:${name}`)(
      module,
      module.exports,
      require,
    );
    return module.exports;
  };
  const validators = new Map<string, TypeValidator>();
  let slice = performance.now();
  for (const s of scripts) {
    // The runtime modules a script requires, imported as they come up (normally already loaded).
    for (const m of s.code.matchAll(/require\("(file:[^"]+)"\)/g))
      if (!runtime.has(m[1]!)) runtime.set(m[1]!, await import(m[1]!));
  }
  for (const s of scripts) {
    for (const value of Object.values(load(s.name))) {
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
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.typeId === "string" &&
    typeof v.validateCreate === "function" &&
    typeof v.validateUpdate === "function"
  );
}
