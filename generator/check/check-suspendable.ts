import { CoreTypeIds, type ApsModel, type Operation } from "../model/model.ts";
import { Codes } from "../diagnostics/codes.ts";
import type { DiagnosticSink } from "../diagnostics/diagnostic.ts";

/**
 * APS097 (docs/aps/lifecycle.md, Suspendable types): a Suspendable type may redefine enable and disable (to document them,
 * say), but the platform calls them as PUT /enable and PUT /disable on the resource, as admin,
 * when it suspends a customer; any other route or wider access breaks that contract.
 */
export function checkSuspendable(model: ApsModel, sink: DiagnosticSink): void {
  for (const type of model.types.values()) {
    if (!type.isSuspendable || type.id === CoreTypeIds.suspendable) continue;
    for (const name of ["enable", "disable"] as const) {
      const op = type.decl.operations.get(name);
      if (op) checkRedefinition(op, name, type.name, sink);
    }
  }
}

function checkRedefinition(op: Operation, name: "enable" | "disable", typeName: string, sink: DiagnosticSink): void {
  const what = `operation "${name}" of Suspendable type "${typeName}"`;
  if (op.verb !== "PUT") {
    sink.report(
      Codes.suspendableOperationChanged,
      op.attrLocs.verb ?? op.loc,
      `${what} must stay "verb": "PUT" (found ${op.verb}); the platform calls PUT /${name}.`,
    );
  }
  if (op.path !== `/${name}` || op.static) {
    const found = `${op.path}${op.static ? ", static" : ""}`;
    sink.report(
      Codes.suspendableOperationChanged,
      op.attrLocs.path ?? op.loc,
      `${what} must stay at "path": "/${name}" on the resource, not static (found ${found}); the platform calls PUT /${name}.`,
    );
  }
  const granted = (["owner", "referrer", "public"] as const).filter((role) => op.access?.[role] === true);
  if (granted.length > 0 || op.access?.admin === false) {
    const problem = granted.length > 0 ? `grants ${granted.join(", ")}` : "denies admin";
    sink.report(
      Codes.suspendableOperationChanged,
      op.attrLocs.access ?? op.loc,
      `${what}: access ${problem}, but only admin may run it; use "access": {"admin": true, "owner": false, "referrer": false}.`,
    );
  }
}
