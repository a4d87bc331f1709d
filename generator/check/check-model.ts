import type { ApsModel } from "../model/model.ts";
import { checkEncryption } from "./check-encryption.ts";
import { checkInheritance } from "./check-inheritance.ts";
import { checkLiterals } from "./check-literals.ts";
import { checkOperations } from "./check-operations.ts";
import { checkPackages } from "./check-packages.ts";
import { checkProperties } from "./check-properties.ts";
import { checkRelations } from "./check-relations.ts";
import { checkRoutes } from "./check-routes.ts";
import { checkSuspendable } from "./check-suspendable.ts";
import type { DiagnosticSink } from "../diagnostics/diagnostic.ts";

/**
 * Runs every semantic declaration rule over the resolved model. Structural rules (JSON types
 * of attributes, names, mandatory attributes) were already applied while reading, and
 * reference rules while resolving. Each rule looks at the elements a declaration wrote itself,
 * so an inherited mistake is reported once, in the file that has to change. The bundled core
 * types are checked like any package.
 */
export function checkModel(model: ApsModel, sink: DiagnosticSink): void {
  checkPackages(model, sink);
  checkInheritance(model, sink);
  checkProperties(model, sink);
  checkLiterals(model, sink);
  checkEncryption(model, sink);
  checkRelations(model, sink);
  checkOperations(model, sink);
  checkRoutes(model, sink);
  checkSuspendable(model, sink);
}
