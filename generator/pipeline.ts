/**
 * The front half of the generator (load -> model -> check), and the PHP reader of `aps-gen
 * declarations`: an entry of its own (generator/index.ts re-exports it) that loads no emitter,
 * for callers that only check (the CLI's `check`).
 */
import { checkModel } from "./check/check-model.ts";
import { DiagnosticSink, sortDiagnostics, type Diagnostic } from "./diagnostics/diagnostic.ts";
import { loadInputs, type LoadOptions } from "./load/load-inputs.ts";
import { buildModel } from "./model/build-model.ts";
import type { ApsModel } from "./model/model.ts";

export { InputError } from "./load/package-source.ts";
export { phpDeclarations, type DeclarationsOutcome } from "./load/php/php-declarations.ts";
/** The vocabulary of declarations, for editors' completion (aps-gen lsp). */
export { propertyAttributeNames, relationAttributeNames } from "./model/read-declaration.ts";
export { FORMATS, UNITS } from "../runtime/common/limits.ts";

/** The model of the inputs and every finding about them, sorted by place. */
export interface CompileResult {
  readonly model: ApsModel;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * load -> model -> check: the front half of the pipeline shared by `check`, `build` and the
 * controller's package import. Throws InputError only when an input cannot be read at all.
 */
export function compile(inputs: readonly string[], options: LoadOptions = {}): CompileResult {
  const loaded = loadInputs(inputs, options);
  const sink = new DiagnosticSink();
  sink.addAll(loaded.diagnostics);
  const model = buildModel(loaded, sink);
  checkModel(model, sink);
  return { model, diagnostics: sortDiagnostics(sink.items) };
}
