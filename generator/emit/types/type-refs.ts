import type { ResolvedType, TypeRef } from "../../model/model.ts";
import type { ImportSet } from "../core/import-set.ts";
import type { TypeNames } from "../core/name-table.ts";

/** Where generated modules import the shared shapes from. */
export const RUNTIME_TYPES = "aps-gen/runtime/common/types";

/** The TypeScript type of a type reference, importing what it names. */
export function refTs(
  ref: TypeRef,
  context: ResolvedType,
  imports: ImportSet,
  names: ReadonlyMap<string, TypeNames>,
): string {
  switch (ref.kind) {
    case "primitive":
      switch (ref.name) {
        case "string":
          return "string";
        case "number":
          return "number";
        case "integer":
        case "long":
          return imports.use(RUNTIME_TYPES, "Int64");
        case "boolean":
          return "boolean";
        case "object":
          return "Record<string, unknown>";
      }
      break;
    case "array": {
      const inner = refTs(ref.items, context, imports, names);
      return /^[A-Za-z0-9_.]+$/.test(inner) ? `${inner}[]` : `(${inner})[]`;
    }
    case "structure": {
      const owner = names.get(ref.typeId);
      const tsName = owner?.structures.get(ref.name);
      return owner && tsName ? imports.useType(owner, tsName) : "unknown";
    }
    case "resource":
    case "self":
      return imports.use(RUNTIME_TYPES, "ApsLinkRef");
    case "opaque":
    case "unresolved":
      return "unknown";
  }
  return "unknown";
}
