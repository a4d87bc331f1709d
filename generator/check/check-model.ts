import type { ApsModel } from "../model/model.ts";
import type { DiagnosticSink } from "./diagnostic.ts";
import { checkOperations } from "./rules-operations.ts";
import { checkProperties } from "./rules-properties.ts";
import { checkEncryptedInArrays, checkPackages, checkTypes } from "./rules-types.ts";

/**
 * Runs every semantic declaration rule over the resolved model. Structural rules (JSON types
 * of attributes, names, mandatory attributes) were already applied while reading, and
 * reference rules while resolving.
 */
export function checkModel(model: ApsModel, sink: DiagnosticSink): void {
  checkPackages(model, sink);
  checkTypes(model, sink);
  checkProperties(model, sink);
  checkEncryptedInArrays(model, sink);
  checkOperations(model, sink);
}
