import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { TypeValidator } from "../runtime/common/type-validator.ts";
import { emitValidators, VALIDATOR_REGISTRY } from "./emit/validators/emit-validators.ts";
import { buildNameTable } from "./emit/types/name-table.ts";
import type { ApsModel } from "./model/model.ts";

const RUNTIME_COMMON = new URL("../runtime/common/", import.meta.url);
/** The runtime's modules end as this one does: `.ts` from the sources, `.js` in the compiled package. */
const RUNTIME_EXTENSION = import.meta.url.endsWith(".ts") ? ".ts" : ".js";

/**
 * Compiles the validators of a model and loads them into this process: the same code
 * `aps-gen build` writes to generated/, with its imports of `runtime/common` pointing at this
 * installation's runtime, bundled into one ES module by esbuild (which also drops the types, so
 * no TypeScript loader is needed at run time) and imported. Used where the declarations are only
 * known at run time (`aps-gen validate` on any package, `serve`, a package imported while
 * running).
 */
export async function loadValidators(model: ApsModel): Promise<ReadonlyMap<string, TypeValidator>> {
  const files = emitValidators(model, buildNameTable(model), { runtime: (name) => new URL(`${name}${RUNTIME_EXTENSION}`, RUNTIME_COMMON).href });
  const dir = mkdtempSync(join(tmpdir(), "aps-gen-validators-"));
  try {
    for (const f of files) {
      const path = join(dir, f.path);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, f.content);
    }
    const { build } = await import("esbuild");
    const bundle = join(dir, "validators.mjs");
    await build({ entryPoints: [join(dir, VALIDATOR_REGISTRY)], bundle: true, format: "esm", platform: "node", target: "node20", outfile: bundle, external: ["file:*"], logLevel: "silent", legalComments: "none" });
    const registry = (await import(pathToFileURL(bundle).href)) as { validators: ReadonlyMap<string, TypeValidator> };
    return registry.validators;
  } finally {
    // Loaded modules stay in memory; the files are no longer needed.
    rmSync(dir, { recursive: true, force: true });
  }
}
