import type { ApsModel } from "../../model/model.ts";
import { moduleFileNames, structureTsName, typeTsName } from "../naming.ts";

/** Where a type's generated module lives and what it exports. */
export interface TypeNames {
  readonly typeId: string;
  /** Path of the module below the output folder, e.g. `types/core/resource.gen.ts`. */
  readonly modulePath: string;
  readonly tsName: string;
  /** Structure name -> exported TypeScript name. */
  readonly structures: ReadonlyMap<string, string>;
}

/** Names of every type of the model, computed once so all emitters agree on them. */
export function buildNameTable(model: ApsModel): Map<string, TypeNames> {
  const table = new Map<string, TypeNames>();
  for (const pkg of model.packages) {
    const decls = pkg.typeIds.map((id) => model.types.get(id)!.decl);
    const files = moduleFileNames(decls);
    for (const decl of decls) {
      const structures = new Map<string, string>();
      for (const s of decl.structures.values()) structures.set(s.name, structureTsName(decl, s));
      table.set(decl.id, {
        typeId: decl.id,
        modulePath: `types/${pkg.name}/${files.get(decl.id)!}.gen.ts`,
        tsName: typeTsName(decl),
        structures,
      });
    }
  }
  return table;
}
