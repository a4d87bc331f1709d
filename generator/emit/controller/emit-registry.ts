import type { GeneratedFile } from "../../host.ts";
import type { ApsModel } from "../../model/model.ts";
import { banner } from "../render.ts";
import { buildRegistry } from "./registry-data.ts";

/** Path of the controller's compiled type registry below the output folder. */
export const REGISTRY_MODULE = "controller/registry.gen.ts";

/**
 * Emits the controller's type registry as data: access bits, property kinds, relations and
 * operations of every type, so the controller does no declaration work when it starts.
 */
export function emitRegistry(model: ApsModel): GeneratedFile[] {
  const types = buildRegistry(model);
  const content = [
    banner("every input package"),
    'import type { RegistryType } from "aps-gen/runtime/common/registry";',
    "",
    "/** Every type of the inputs, as the controller sees it. */",
    `export const registryTypes: readonly RegistryType[] = ${JSON.stringify(types, null, 2)};`,
    "",
  ].join("\n");
  return [{ path: REGISTRY_MODULE, content }];
}
