import type { ApsModel, Operation, ResolvedType } from "../model/model.ts";
import { pathSegments } from "./check-operations.ts";
import { Codes } from "../diagnostics/codes.ts";
import type { DiagnosticSink } from "../diagnostics/diagnostic.ts";
import { routeShape } from "../../runtime/common/path-template.ts";

/**
 * Route rules on each resolved type, inherited operations and relations included (docs/aps/rest-api.md,
 * custom operations; docs/aps/relations.md section 1): no two operations answer the same request (APS082), and no instance
 * operation path starts with a relation name, which the controller already routes to the
 * relation's links (APS083).
 */
export function checkRoutes(model: ApsModel, sink: DiagnosticSink): void {
  for (const type of model.types.values()) {
    checkDuplicateRoutes(model, type, sink);
    checkRelationPaths(type, sink);
  }
}

/** `{id}` and `{name}` match the same requests, so parameter names do not tell routes apart. */
function routeKey(op: Operation): string {
  return `${op.static ? "static " : ""}${op.verb} ${routeShape(op.path)}`;
}

function describeRoute(op: Operation): string {
  return `${op.verb} ${op.path}${op.static ? " (static)" : ""}`;
}

function checkDuplicateRoutes(model: ApsModel, type: ResolvedType, sink: DiagnosticSink): void {
  const isOwn = (op: Operation) => op.declaredIn === type.id;
  const all = [...type.operations.values()];
  // Inherited operations first, then own ones in source order, so the clash is reported at the
  // operation written later in this file.
  const ordered = [
    ...all.filter((op) => !isOwn(op)),
    ...all.filter(isOwn).sort((a, b) => a.loc.line - b.loc.line || a.loc.col - b.loc.col),
  ];
  const routes = new Map<string, Operation>();
  for (const op of ordered) {
    const key = routeKey(op);
    const earlier = routes.get(key);
    if (!earlier) {
      routes.set(key, op);
      continue;
    }
    if (isOwn(op)) {
      const origin = isOwn(earlier) ? "" : ` inherited from ${earlier.declaredIn}`;
      sink.report(
        Codes.duplicateOperationRoute,
        op.attrLocs.path ?? op.loc,
        `operation "${op.name}" uses ${describeRoute(op)}, the same route as operation "${earlier.name}"${origin}; change the path or the verb of one of them${origin ? `, or redefine "${earlier.name}" under its own name` : ""}.`,
      );
      continue;
    }
    // Both inherited: an ancestor that has both already reported it where it was written.
    const reported = type.ancestors.some((id) => {
      const ops = model.types.get(id)?.operations;
      return ops?.get(op.name) === op && ops.get(earlier.name) === earlier;
    });
    if (reported) continue;
    sink.report(
      Codes.duplicateOperationRoute,
      type.decl.loc,
      `"${type.name}" inherits operation "${earlier.name}" from ${earlier.declaredIn} and operation "${op.name}" from ${op.declaredIn}, both at ${describeRoute(op)}; redefine one of them in "${type.name}" with another path.`,
    );
  }
}

function checkRelationPaths(type: ResolvedType, sink: DiagnosticSink): void {
  for (const op of type.operations.values()) {
    const first = pathSegments(op.path)[0];
    // A static path hangs off the collection, where relation names mean nothing.
    if (op.static || first === undefined) continue;
    const relation = type.relations.get(first);
    if (!relation) continue;
    const message = `operation "${op.name}" path ${op.path} starts with "${first}", a relation of "${type.name}": /aps/2/resources/<id>/${first} already serves the relation's links, so rename the path or the relation.`;
    if (op.declaredIn === type.id) sink.report(Codes.pathEqualsRelation, op.attrLocs.path ?? op.loc, message);
    else if (relation.declaredIn === type.id) sink.report(Codes.pathEqualsRelation, relation.loc, message);
  }
}
