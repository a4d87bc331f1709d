import { buildRegistry } from "../../generator/emit/controller/registry-data.ts";
import { buildOpenApi } from "../../generator/emit/openapi/emit-openapi.ts";
import { loadValidators } from "../../cli/validate/load-validators.ts";
import { startPackages } from "../../cli/serve/package-import/package-compiler.ts";
import { compileArchiveInWorker } from "../../cli/serve/package-import/worker-compiler.ts";
import { compile } from "../../generator/pipeline.ts";
import type { ControllerOptions } from "../../runtime/controller/serve.ts";
import { repoRoot } from "./paths.ts";

/**
 * What `aps-gen serve` gives the controller for `inputs` (declaration folders relative to the
 * repository): the registry, validators, start packages, the package compiler and the OpenAPI
 * document. Declarations with errors fail the suite before a controller starts.
 */
export async function controllerModel(
  inputs: readonly string[],
): Promise<Pick<ControllerOptions, "types" | "validators" | "packages" | "compiler" | "openApi">> {
  const { model, diagnostics } = compile([...inputs], { cwd: repoRoot });
  const errors = diagnostics.filter((d) => d.severity === "error");
  if (errors.length) throw new Error(`declarations have errors: ${errors.map((e) => e.message).join("; ")}`);
  return {
    types: buildRegistry(model),
    validators: await loadValidators(model),
    packages: startPackages(model, repoRoot),
    compiler: compileArchiveInWorker,
    openApi: buildOpenApi(model),
  };
}
