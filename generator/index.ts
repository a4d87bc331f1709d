/**
 * The generator's public API: what the CLI, the controller's package import and vendors' own
 * scripts use. Everything else under generator/ is internal.
 */
export { emitAll } from "./build.ts";
export { allCodes, Codes, type DiagnosticCode } from "./diagnostics/codes.ts";
export { formatDiagnostic, hasErrors, sortDiagnostics, type Diagnostic, type Severity } from "./diagnostics/diagnostic.ts";
export { compareHost, diskHost, isUpToDate, memoryHost, type GeneratedFile, type OutputHost, type OutputReport } from "./host.ts";
export { loadInputs, type LoadedPackage, type LoadOptions, type LoadResult } from "./load/load-inputs.ts";
export { InputError } from "./load/package-source.ts";
export type { ApsModel, ModelPackage, Operation, Property, Relation, ResolvedType, Structure, TypeDeclaration, TypeRef } from "./model/model.ts";
export { compile, type CompileResult } from "./pipeline.ts";
