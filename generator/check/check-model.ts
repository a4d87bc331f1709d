import type { ApsModel } from "../model/model.ts";
import type { DiagnosticSink } from "./diagnostic.ts";

/**
 * Runs every semantic declaration rule over the resolved model. Structural rules (JSON types
 * of attributes, names, mandatory attributes) were already applied while reading.
 */
export function checkModel(model: ApsModel, sink: DiagnosticSink): void {
  void model;
  void sink;
}
