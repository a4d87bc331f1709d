/**
 * Where the resource features find types and their validators (packages/catalog.ts is the one
 * there is), and the checks that need a type's validators beyond a caller's body: what an
 * application returns.
 */
import type { TypeValidator } from "../../common/type-validator.ts";
import type { RegistryType, TypeRegistry } from "../registry.ts";
import { ControllerError } from "../support/errors.ts";

/** Types and their compiled validators; imported packages replace the registry, so read it anew on each use. */
export interface TypeCatalog {
  readonly registry: TypeRegistry;
  readonly validators: ReadonlyMap<string, TypeValidator>;
  /** Looks for packages imported by other controller instances. */
  refresh(): Promise<void>;
}

export function validatorOf(catalog: TypeCatalog, type: RegistryType): TypeValidator {
  const v = catalog.validators.get(type.id);
  if (!v) throw new ControllerError(500, `No validators were compiled for ${type.id}.`);
  return v;
}

/**
 * What an application returns is merged only when it is valid for the type (values an
 * application writes: everything settable, nothing unknown); `aps` stays the controller's.
 */
export function acceptedFromApplication(
  catalog: TypeCatalog,
  type: RegistryType,
  returned: Record<string, unknown>,
): Record<string, unknown> {
  const { aps: _aps, ...props } = returned;
  for (const name of Object.keys(type.relations)) delete props[name];
  const errors = validatorOf(catalog, type).validateUpdate(props, { application: true, roles: 0 });
  if (errors.length)
    throw new ControllerError(
      502,
      `The application returned properties that are not valid for ${type.name}: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}.`,
    );
  return props;
}
