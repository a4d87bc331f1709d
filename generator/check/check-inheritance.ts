import type { ApsModel, Property, ResolvedType, TypeRef } from "../model/model.ts";
import { Codes } from "../diagnostics/codes.ts";
import type { DiagnosticSink } from "../diagnostics/diagnostic.ts";

/**
 * APS029: a property that redefines an inherited one may change its other attributes but not
 * its type, since stored resources and clients of the parent type would break (docs/aps/types.md section 3:
 * "data declarations may only change in backward-compatible ways").
 */
export function checkInheritance(model: ApsModel, sink: DiagnosticSink): void {
  for (const type of model.types.values()) {
    for (const own of type.decl.properties.values()) {
      const inherited = nearestInherited(model, type, own.name);
      if (!inherited || sameType(own, inherited.property)) continue;
      sink.report(
        Codes.redefinitionChangesType,
        own.attrLocs.type ?? own.loc,
        `property "${own.name}" redefines the one inherited from ${inherited.from} with type "${typeText(own)}" instead of "${typeText(inherited.property)}"; a redefinition may not change the type. Keep "${typeText(inherited.property)}", or use a new property name.`,
      );
    }
  }
}

/** The definition a redefinition replaces: the one of the nearest ancestor that has it. */
function nearestInherited(
  model: ApsModel,
  type: ResolvedType,
  name: string,
): { property: Property; from: string } | undefined {
  for (const id of type.ancestors) {
    const property = model.types.get(id)?.properties.get(name);
    if (property) return { property, from: property.declaredIn };
  }
  return undefined;
}

/**
 * Compares resolved types, so `Counter` and `http://.../resource/1.0#Counter` are the same
 * structure; falls back to the text when either side could not be resolved.
 */
function sameType(a: Property, b: Property): boolean {
  const ka = typeKey(a.type);
  const kb = typeKey(b.type);
  return ka !== undefined && kb !== undefined ? ka === kb : typeText(a) === typeText(b);
}

function typeKey(ref: TypeRef): string | undefined {
  switch (ref.kind) {
    case "primitive":
      return ref.name;
    case "array": {
      const items = typeKey(ref.items);
      return items === undefined ? undefined : `array<${items}>`;
    }
    case "structure":
      return `${ref.typeId}#${ref.name}`;
    case "resource":
      return ref.typeId;
    case "self":
      // `self` names the type that writes it; a child's `self` is still a kind of the parent.
      return "self";
    default:
      return undefined;
  }
}

/** The type as written, with the item type for arrays: `array of string`. */
function typeText(p: Property): string {
  return p.type.kind === "array" ? `array of ${itemText(p.type.items)}` : p.typeText;
}

function itemText(ref: TypeRef): string {
  switch (ref.kind) {
    case "primitive":
      return ref.name;
    case "structure":
      return ref.name;
    case "resource":
      return ref.typeId;
    case "opaque":
      return ref.ref;
    case "unresolved":
      return ref.text;
    default:
      return ref.kind;
  }
}
