import type { ApsModel, Property, ResolvedType } from "../model/model.ts";

/** A property a declaration wrote itself, with how messages should name it. */
export interface OwnProperty {
  readonly property: Property;
  /** `property "quota"` or `structure "Plan" property "code"`. */
  readonly what: string;
  /** The type whose file declares the property (the owner of the structure, for structure members). */
  readonly type: ResolvedType;
}

/**
 * Every property of every declaration, at type level and inside its structures, each exactly
 * once: inherited copies are skipped, so one mistake gives one diagnostic, in the file to fix.
 */
export function ownProperties(model: ApsModel): OwnProperty[] {
  const out: OwnProperty[] = [];
  for (const type of model.types.values()) {
    for (const property of type.decl.properties.values())
      out.push({ property, what: `property "${property.name}"`, type });
    for (const s of type.decl.structures.values()) {
      for (const property of s.properties.values())
        out.push({ property, what: `structure "${s.name}" property "${property.name}"`, type });
    }
  }
  return out;
}
