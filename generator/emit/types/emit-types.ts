import type { ApsModel } from "../../model/model.ts";
import type { GeneratedFile } from "../../host.ts";
import { render, banner } from "../render.ts";
import { buildNameTable, type TypeNames } from "./name-table.ts";
import { typeModuleView } from "./type-module.ts";

/**
 * Emits one module per type (`types/<package>/<type>.gen.ts`) and an index per package that
 * re-exports every name explicitly. A pure function of the model: same model, same bytes.
 */
export function emitTypes(model: ApsModel, names: ReadonlyMap<string, TypeNames> = buildNameTable(model)): GeneratedFile[] {
  const files: GeneratedFile[] = [];
  for (const pkg of model.packages) {
    if (pkg.typeIds.length === 0) continue;
    const exports: { module: string; types: string; values: string }[] = [];
    for (const id of pkg.typeIds) {
      const type = model.types.get(id)!;
      const view = typeModuleView(type, model, names);
      const own = names.get(id)!;
      files.push({ path: own.modulePath, content: render("types/type-module", view) });
      // Enums are values and types at once, so they go in the value export only.
      const typeNames = view.interfaces.map((i) => i.name);
      exports.push({
        module: `./${own.modulePath.slice(own.modulePath.lastIndexOf("/") + 1).replace(/\.ts$/, ".js")}`,
        types: [...new Set(typeNames)].join(", "),
        values: [`${own.tsName}TypeId`, ...view.enums.map((e) => e.name)].join(", "),
      });
    }
    files.push({ path: `types/${pkg.name}/index.gen.ts`, content: render("types/package-index", { banner: banner(pkg.descriptor ?? pkg.root), exports }) });
  }
  return files;
}
