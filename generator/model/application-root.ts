import type { ApsModel, ModelPackage, Relation, ResolvedType } from "./model.ts";

/**
 * The application root type of a package: its first type implementing core/application that
 * is an APP-META.xml service. This is the type the controller creates the root resource of when
 * an instance is installed (runtime/controller/instances/instance-lifecycle.ts picks it the same
 * way), so its properties are the instance's settings. Packages without APP-META.xml (the core
 * types, plain folders) have none: the controller serves their types alone.
 */
export function applicationRootOf(pkg: ModelPackage, model: ApsModel): ResolvedType | undefined {
  if (pkg.descriptor === undefined) return undefined;
  const root = pkg.typeIds.map((id) => model.types.get(id)).find((t) => t?.isApplication);
  return root?.decl.service ? root : undefined;
}

/**
 * Whether the controller links `relation` itself when a provision body leaves it out: a singular
 * relation of a type served by an application, whose target the application root implements, is
 * linked to the serving instance's root resource (runtime/controller/resources/provisioning.ts,
 * provision). `root` is the application root of the type's package.
 */
export function linkedToRoot(relation: Relation, root: ResolvedType | undefined): boolean {
  return (
    root !== undefined &&
    !relation.collection &&
    (root.id === relation.typeId || root.ancestors.includes(relation.typeId))
  );
}
