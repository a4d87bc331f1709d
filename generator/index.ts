/**
 * The generator's public API: what the CLI, the controller's package import and vendors' own
 * scripts use (the package's `aps-gen/generator` export). Everything in the folders below
 * generator/ is internal; the modules beside this one are entries too, each loading only its
 * part, for callers that must start fast:
 *
 * - diagnostics.ts: findings and their rules (generator/diagnostics/ only);
 * - pipeline.ts: load -> model -> check, without any emitter;
 * - host.ts: where generated files go;
 * - build.ts: every emitter over a model.
 *
 * This module re-exports them all and adds what only some callers need: the registry and the
 * OpenAPI document a controller serves, the validators it compiles while running, and what
 * `aps-gen init` scaffolds against (the connector module's surface and the names it uses).
 */
export { emitAll } from "./build.ts";
export * from "./diagnostics.ts";
export {
  compareHost,
  diskHost,
  isUpToDate,
  listFiles,
  memoryHost,
  type GeneratedFile,
  type OutputHost,
  type OutputReport,
} from "./host.ts";
export { loadInputs, type LoadedPackage, type LoadOptions, type LoadResult } from "./load/load-inputs.ts";
export type {
  ApsModel,
  ModelPackage,
  Operation,
  Property,
  Relation,
  ResolvedType,
  Structure,
  TypeDeclaration,
  TypeRef,
} from "./model/model.ts";
export {
  compile,
  FORMATS,
  InputError,
  phpDeclarations,
  propertyAttributeNames,
  relationAttributeNames,
  UNITS,
  type CompileResult,
  type DeclarationsOutcome,
} from "./pipeline.ts";
export { buildRegistry } from "./emit/controller/registry-data.ts";
export { buildOpenApi } from "./emit/openapi/emit-openapi.ts";
export { runTimeValidatorModules } from "./emit/validators/run-time-validators.ts";
export type { RuntimeSpecifier } from "./emit/core/module-scope.ts";
export { connectorSurface, type ConnectorService, type ConnectorSurface } from "./emit/connector/connector-surface.ts";
/** The banner of files generated from a package: a build overwrites only files that start with it. */
export { packageBanner } from "./emit/core/banner.ts";
/** The names generated code derives from declared ones (`my-svc` -> `MySvc`, `my-svc`). */
export { kebabCase, pascalCase } from "./emit/core/naming.ts";
/** An import or export statement printed as generated modules print it (wrapped past the print width). */
export { specifierList } from "./emit/core/import-set.ts";
