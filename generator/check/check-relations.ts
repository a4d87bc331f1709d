import type { ApsModel } from "../model/model.ts";
import { Codes } from "../diagnostics/codes.ts";
import type { DiagnosticSink } from "../diagnostics/diagnostic.ts";

/**
 * APS072: a relation and a property of one type cannot share a name, because both appear as a
 * member of that name in the resource's JSON. Checked on the resolved type, so a clash between
 * an own element and an inherited one is found too; it is reported only in the type that wrote
 * one of the two, so descendants do not repeat it.
 */
export function checkRelations(model: ApsModel, sink: DiagnosticSink): void {
  for (const type of model.types.values()) {
    for (const relation of type.relations.values()) {
      const property = type.properties.get(relation.name);
      if (!property) continue;
      const ownRelation = relation.declaredIn === type.id;
      if (!ownRelation && property.declaredIn !== type.id) continue;
      const origin = (declaredIn: string) => (declaredIn === type.id ? "" : ` inherited from ${declaredIn}`);
      sink.report(
        Codes.relationNameConflict,
        ownRelation ? relation.loc : property.loc,
        ownRelation
          ? `relation "${relation.name}" has the same name as property "${property.name}"${origin(property.declaredIn)} of "${type.name}"; both would be the member "${relation.name}" of the resource, so rename the relation.`
          : `property "${property.name}" has the same name as relation "${relation.name}"${origin(relation.declaredIn)} of "${type.name}"; both would be the member "${relation.name}" of the resource, so rename the property.`,
      );
    }
  }
}
