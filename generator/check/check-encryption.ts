import type { ApsModel, Structure, TypeRef } from "../model/model.ts";
import { Codes } from "../diagnostics/codes.ts";
import type { DiagnosticSink } from "../diagnostics/diagnostic.ts";

/**
 * APS057 (docs/aps/resources.md: encrypted properties, limits): `encrypted` is not supported on a property of a structure
 * that is an array element, because an array of structures is stored as one JSON string and
 * cannot encrypt a part of it. Finds every structure used as array items by a property anywhere
 * in the model, directly or nested inside such a structure, then flags its encrypted members.
 * Operation parameters and responses are not stored, so they do not count.
 */
export function checkEncryption(model: ApsModel, sink: DiagnosticSink): void {
  const structureOf = (typeId: string, name: string): Structure | undefined =>
    model.types.get(typeId)?.decl.structures.get(name);
  /** Each structure found inside an array, with the property that puts it there. */
  const inArrays = new Map<Structure, string>();
  const visit = (ref: TypeRef, via: string | undefined): void => {
    if (ref.kind === "array") {
      visit(ref.items, via);
      return;
    }
    if (ref.kind !== "structure" || via === undefined) return;
    const s = structureOf(ref.typeId, ref.name);
    if (!s || inArrays.has(s)) return;
    inArrays.set(s, via);
    for (const p of s.properties.values()) visit(p.type, via);
  };
  for (const type of model.types.values()) {
    for (const p of type.decl.properties.values()) {
      if (p.type.kind === "array") visit(p.type, `property "${p.name}" of "${type.name}"`);
    }
    for (const s of type.decl.structures.values()) {
      for (const p of s.properties.values())
        if (p.type.kind === "array") visit(p.type, `"${s.name}.${p.name}" of "${type.name}"`);
    }
  }
  for (const [s, via] of inArrays) {
    for (const p of s.properties.values()) {
      if (!p.encrypted) continue;
      sink.report(
        Codes.encryptedInArray,
        p.attrLocs.encrypted ?? p.loc,
        `structure "${s.name}" property "${p.name}": "encrypted" is not supported here, because "${s.name}" is an array element (through ${via}) and arrays of structures are stored as one JSON string. Move the secret to a property of a resource type, or drop "encrypted".`,
      );
    }
  }
}
