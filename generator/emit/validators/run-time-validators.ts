import type { GeneratedFile } from "../../host.ts";
import type { ApsModel } from "../../model/model.ts";
import { perTypeValidatorModulePath, type RuntimeSpecifier } from "../core/module-scope.ts";
import { buildNameTable } from "../core/name-table.ts";
import { emitValidators, VALIDATOR_REGISTRY } from "./emit-validators.ts";

/**
 * The validators of a model as aps-gen compiles them for its own use while it runs (`aps-gen
 * validate`, `serve`, a package imported while serving: cli/validate/load-validators.ts): the code
 * `aps-gen build` writes, a module per type (perTypeValidatorModulePath) so that they can be
 * run a few types at a time, importing `runtime/common/<name>` from where `runtime` says.
 * Without the registry module, which only imports the others.
 */
export function runTimeValidatorModules(model: ApsModel, runtime: RuntimeSpecifier): GeneratedFile[] {
  return emitValidators(model, buildNameTable(model), { runtime, layout: perTypeValidatorModulePath }).filter(
    (f) => f.path !== VALIDATOR_REGISTRY,
  );
}
