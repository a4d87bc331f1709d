import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { TypeValidator } from "../runtime/common/type-validator.ts";
import { emitValidators, VALIDATOR_REGISTRY } from "./emit/validators/emit-validators.ts";
import { buildNameTable } from "./emit/types/name-table.ts";
import type { ApsModel } from "./model/model.ts";

const RUNTIME_COMMON = new URL("../runtime/common/", import.meta.url);

/**
 * Compiles the validators of a model and loads them into this process: the same code
 * `aps-gen build` writes to generated/, emitted into a temporary folder with imports pointing at
 * this installation's runtime, then imported. Used where the declarations are only known at run
 * time (`aps-gen validate` on any package; the controller importing a package). Needs a loader
 * for `.ts` files (the aps-gen bin registers tsx).
 */
export async function loadValidators(model: ApsModel): Promise<ReadonlyMap<string, TypeValidator>> {
  const files = emitValidators(model, buildNameTable(model), { runtime: (name) => new URL(`${name}.ts`, RUNTIME_COMMON).href });
  const dir = mkdtempSync(join(tmpdir(), "aps-gen-validators-"));
  try {
    // Outside any package, .ts files would load as CommonJS.
    writeFileSync(join(dir, "package.json"), '{"type": "module"}\n');
    for (const f of files) {
      const path = join(dir, f.path);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, f.content);
    }
    const registry = (await import(pathToFileURL(join(dir, VALIDATOR_REGISTRY)).href)) as { validators: ReadonlyMap<string, TypeValidator> };
    return registry.validators;
  } finally {
    // Loaded modules stay in memory; the files are no longer needed.
    rmSync(dir, { recursive: true, force: true });
  }
}
