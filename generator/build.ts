import { emitTypes } from "./emit/types/emit-types.ts";
import { emitClients } from "./emit/client/emit-client.ts";
import { emitOpenApi } from "./emit/openapi/emit-openapi.ts";
import { emitConnectors } from "./emit/connector/emit-connector.ts";
import { emitValidators } from "./emit/validators/emit-validators.ts";
import { buildNameTable } from "./emit/core/name-table.ts";
import type { GeneratedFile } from "./host.ts";
import type { ApsModel } from "./model/model.ts";

/** Runs every emitter over the model and returns all files of one build, sorted by path. */
export function emitAll(model: ApsModel): GeneratedFile[] {
  const names = buildNameTable(model);
  const files = [
    ...emitTypes(model, names),
    ...emitValidators(model, names),
    ...emitConnectors(model, names),
    ...emitClients(model, names),
    ...emitOpenApi(model),
  ];
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
