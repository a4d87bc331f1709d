/**
 * The compiled type registry: what the controller needs to know about each type, computed once
 * by the generator when serve starts or a package is imported, never derived from declarations
 * per request.
 */

import {
  defaultOperationBits,
  type RegistryOperation,
  type RegistryRelation,
  type RegistryType,
} from "../common/registry.ts";

export type { RegistryOperation, RegistryRelation, RegistryType };

/** Every type the controller knows, by id. */
export type TypeRegistry = ReadonlyMap<string, RegistryType>;

/** Builds the lookup map from the generated list. */
export function typeRegistry(types: readonly RegistryType[]): TypeRegistry {
  return new Map(types.map((t) => [t.id, t]));
}

/** Whether `typeId` is `base` or implements it (RQL `implementing` includes the base itself). */
export function implementsType(registry: TypeRegistry, typeId: string, base: string): boolean {
  return typeId === base || (registry.get(typeId)?.ancestors.includes(base) ?? false);
}

/** Roles an operation allows when a type does not declare it: admin and owner (docs/aps/security.md, "Access checks"). */
const DEFAULT_OPERATION_ACCESS = defaultOperationBits(false);
const DEFAULT_RETRIEVE_ACCESS = defaultOperationBits(true);

/** Role bits that may run `operation` on resources of `type`. */
export function operationAccess(type: RegistryType, operation: string): number {
  return (
    type.operations[operation]?.access ??
    (operation === "retrieve" ? DEFAULT_RETRIEVE_ACCESS : DEFAULT_OPERATION_ACCESS)
  );
}
