import { accessBits } from "../../../runtime/common/actor.ts";
import {
  defaultOperationAccess,
  type PropertyKind,
  type RegistryOperation,
  type RegistryProperty,
  type RegistryRelation,
  type RegistryType,
} from "../../../runtime/common/registry.ts";
import { isBaseOperation } from "../../model/base-operations.ts";
import {
  defaultPropertyAccess,
  type ApsModel,
  type Operation,
  type Property,
  type TypeRef,
} from "../../model/model.ts";

/**
 * The controller's view of every type of the model, in model order: plain data, so it can be
 * emitted as a module or used in memory when a package arrives at run time.
 */
export function buildRegistry(model: ApsModel): RegistryType[] {
  // A package with an APP-META.xml is an application; types of plain folders (the core types
  // among them) have none, so the controller serves them alone.
  const served = new Set(model.packages.filter((p) => p.descriptor !== undefined).flatMap((p) => p.typeIds));
  const packageOf = new Map(model.packages.flatMap((p) => p.typeIds.map((id) => [id, p.name] as const)));
  return [...model.types.values()].map((t) => ({
    id: t.id,
    name: t.name,
    packageName: packageOf.get(t.id) ?? "",
    ancestors: [...t.ancestors],
    isResource: t.isResource,
    isApplication: t.isApplication,
    isSuspendable: t.isSuspendable,
    servedBy: served.has(t.id) ? "application" : "platform",
    ...(t.decl.service ? { service: t.decl.service } : {}),
    properties: Object.fromEntries([...t.properties.values()].map((p) => [p.name, registryProperty(p)])),
    relations: Object.fromEntries(
      [...t.relations.values()].map((r): [string, RegistryRelation] => [
        r.name,
        { typeId: r.typeId, collection: r.collection, required: r.required },
      ]),
    ),
    operations: Object.fromEntries(
      [...t.operations.values()].map((op) => [op.name, registryOperation(op, isBaseOperation(op, t, model))]),
    ),
    ...(t.decl.document ? { declaration: t.decl.document } : {}),
  }));
}

function registryProperty(p: Property): RegistryProperty {
  return {
    kind: kindOf(p.type),
    required: p.required,
    readonly: p.readonly,
    final: p.final,
    encrypted: p.encrypted,
    access: accessBits(p.access, defaultPropertyAccess),
    ...(p.access?.referrer === undefined ? { referrerUnsaid: true as const } : {}),
  };
}

function registryOperation(op: Operation, base: boolean): RegistryOperation {
  const defaults = defaultOperationAccess(op.verb === "GET" && op.path === "/");
  return { verb: op.verb, path: op.path, static: op.static, base, access: accessBits(op.access, defaults) };
}

function kindOf(ref: TypeRef): PropertyKind {
  switch (ref.kind) {
    case "primitive":
      return ref.name === "long" ? "integer" : ref.name;
    case "array":
      return "array";
    case "structure":
      return "structure";
    case "resource":
    case "self":
      return "link";
    default:
      return "unknown";
  }
}
