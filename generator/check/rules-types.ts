import type { ApsModel, Structure, TypeRef } from "../model/model.ts";
import { Codes } from "./codes.ts";
import type { DiagnosticSink } from "./diagnostic.ts";

/** Type-level rules: instantiability, inheritance compatibility, relation names. */
export function checkTypes(model: ApsModel, sink: DiagnosticSink): void {
  const bundled = new Set(model.packages.filter((p) => p.bundled).flatMap((p) => p.typeIds));
  for (const type of model.types.values()) {
    const decl = type.decl;
    if (!bundled.has(type.id) && !type.isResource) {
      sink.report(Codes.notAResource, decl.loc, `"${type.name}" does not implement http://aps-standard.org/types/core/resource/1.0 (directly or through a parent), so it cannot have instances; add it to "implements" unless this is a mixin.`);
    }
    for (const p of decl.properties.values()) {
      for (const ancestorId of type.ancestors) {
        const inherited = model.types.get(ancestorId)?.decl.properties.get(p.name);
        if (!inherited) continue;
        if (inherited.typeText !== p.typeText) {
          sink.report(Codes.redefinitionChangesType, p.attrLocs["type"] ?? p.loc, `property "${p.name}" redefines the one of ${ancestorId} with type "${p.typeText}" instead of "${inherited.typeText}"; a redefinition may not change the type.`);
        }
        break;
      }
    }
    for (const r of decl.relations.values()) {
      if (type.properties.has(r.name)) {
        sink.report(Codes.relationNameConflict, r.loc, `relation "${r.name}" has the same name as a property of "${type.name}"; both would appear as "${r.name}" in the resource, so rename one.`);
      }
    }
  }
}

/** Packages with APP-META.xml need a type implementing core/application (aps build refuses otherwise). */
export function checkPackages(model: ApsModel, sink: DiagnosticSink): void {
  for (const pkg of model.packages) {
    if (!pkg.descriptor || !pkg.complete) continue;
    if (pkg.typeIds.some((id) => model.types.get(id)?.isApplication)) continue;
    sink.report(Codes.noApplicationType, { file: pkg.descriptor, line: 1, col: 1 }, `no type of the package implements http://aps-standard.org/types/core/application/1.0; one service must be the application root that instances are created from.`);
  }
}

/**
 * SPEC 2.3 rule 5: `encrypted` is not supported on elements of an array inside a structure.
 * Finds every structure used (directly or nested) as array items, then flags its encrypted properties.
 */
export function checkEncryptedInArrays(model: ApsModel, sink: DiagnosticSink): void {
  const structureOf = (typeId: string, name: string): Structure | undefined => model.types.get(typeId)?.decl.structures.get(name);
  const inArrays = new Map<Structure, string>();
  const visit = (ref: TypeRef, viaArray: string | undefined) => {
    if (ref.kind === "array") return visit(ref.items, viaArray ?? "an array");
    if (ref.kind !== "structure" || viaArray === undefined) return;
    const s = structureOf(ref.typeId, ref.name);
    if (!s || inArrays.has(s)) return;
    inArrays.set(s, viaArray);
    for (const p of s.properties.values()) visit(p.type, viaArray);
  };
  for (const type of model.types.values()) {
    for (const p of type.decl.properties.values()) if (p.type.kind === "array") visit(p.type, `property "${p.name}" of "${type.name}"`);
    for (const s of type.decl.structures.values()) for (const p of s.properties.values()) if (p.type.kind === "array") visit(p.type, `${s.name}.${p.name} of "${type.name}"`);
  }
  for (const [s, via] of inArrays) {
    for (const p of s.properties.values()) {
      if (p.encrypted) sink.report(Codes.encryptedInArray, p.attrLocs["encrypted"] ?? p.loc, `structure ${s.name}, property "${p.name}": "encrypted" is not supported here because ${s.name} is an array element (through ${via}); model the secret as a property of a resource (SPEC 2.3).`);
    }
  }
}
