import { CoreTypeIds, type ApsModel, type Operation, type ResolvedType } from "./model.ts";

/** Core types whose operations are base operations, handled by the controller itself. */
const BASE_TYPES: readonly string[] = [CoreTypeIds.resource, CoreTypeIds.suspendable, CoreTypeIds.application];

/**
 * Whether an operation is a base one of core/resource, core/suspendable or core/application.
 * A type that redefines one (to add optional parameters, say) still declares a base operation.
 */
export function isBaseOperation(op: Operation, type: ResolvedType, model: ApsModel): boolean {
  if (BASE_TYPES.includes(op.declaredIn)) return true;
  return BASE_TYPES.some((id) => type.ancestors.includes(id) && model.types.get(id)?.operations.has(op.name));
}
