import { CoreTypeIds, type ApsModel } from "../model/model.ts";
import { Codes } from "../diagnostics/codes.ts";
import type { DiagnosticSink } from "../diagnostics/diagnostic.ts";

/**
 * Package rules: a complete APS package has an application root type (APS008), and every type a
 * package declares can have instances (APS028). The bundled core holds mixins such as Contact
 * and Suspendable on purpose, so APS028 leaves it alone.
 */
export function checkPackages(model: ApsModel, sink: DiagnosticSink): void {
  for (const pkg of model.packages) {
    // An incomplete package (a schema the loader could not read) may hold its root type in the
    // missing file; the loader has already said so, and guessing here would be a second error.
    if (pkg.descriptor !== undefined && pkg.complete && !pkg.typeIds.some((id) => model.types.get(id)?.isApplication)) {
      sink.report(
        Codes.noApplicationType,
        { file: pkg.descriptor, line: 1, col: 1 },
        `package "${pkg.appId ?? pkg.name}" has no application root type: no type of it implements ${CoreTypeIds.application}. Add that id to "implements" of the type the controller should create when an instance is installed.`,
      );
    }
    if (pkg.bundled) continue;
    for (const id of pkg.typeIds) {
      const type = model.types.get(id);
      if (!type || type.isResource) continue;
      sink.report(
        Codes.notAResource,
        type.decl.loc,
        `type "${type.name}" does not implement ${CoreTypeIds.resource} (directly or through a parent), so it cannot have instances; add it to "implements", unless the type is only a mixin for other types.`,
      );
    }
  }
}
