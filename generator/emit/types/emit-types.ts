import type { ApsModel } from "../../model/model.ts";
import type { GeneratedFile } from "../../host.ts";
import { applicationRootOf } from "../../model/application-root.ts";
import { packageBanner } from "../core/banner.ts";
import { fileText } from "../core/code-writer.ts";
import { specifierList } from "../core/import-set.ts";
import { buildNameTable, type TypeNames } from "../core/name-table.ts";
import { typeModule, typeModuleExports } from "./type-module.ts";

/**
 * Emits one module per type (`types/<package>/<type>.gen.ts`) and an index per package that
 * re-exports every name explicitly. A pure function of the model: same model, same bytes.
 */
export function emitTypes(model: ApsModel, names: ReadonlyMap<string, TypeNames> = buildNameTable(model)): GeneratedFile[] {
  const files: GeneratedFile[] = [];
  for (const pkg of model.packages) {
    if (pkg.typeIds.length === 0) continue;
    const root = applicationRootOf(pkg, model);
    const modules: { own: TypeNames; types: readonly string[]; values: readonly string[] }[] = [];
    for (const id of pkg.typeIds) {
      const type = model.types.get(id)!;
      const own = names.get(id)!;
      files.push({ path: own.modulePath, content: typeModule(type, model, names, root) });
      // Enums are values and types at once, so they go in the value export only.
      modules.push({ own, ...typeModuleExports(type, own, root) });
    }
    // Two types of a package may both declare e.g. an `Address` structure: the index then
    // exports each under its type's name (`CustomerAddress`, `OrderAddress`).
    const seen = new Map<string, number>();
    for (const m of modules) for (const n of [...m.types, ...m.values]) seen.set(n, (seen.get(n) ?? 0) + 1);
    const exported = (own: TypeNames, n: string) => ((seen.get(n) ?? 0) > 1 ? `${n} as ${own.tsName}${n}` : n);
    const lines: string[] = [];
    for (const m of modules) {
      const module = `./${m.own.modulePath.slice(m.own.modulePath.lastIndexOf("/") + 1).replace(/\.ts$/, ".js")}`;
      lines.push(specifierList("export type ", m.types.map((n) => exported(m.own, n)), ` from "${module}";`));
      if (m.values.length) lines.push(specifierList("export ", m.values.map((n) => exported(m.own, n)), ` from "${module}";`));
    }
    files.push({ path: `types/${pkg.name}/index.gen.ts`, content: fileText([[packageBanner(model, pkg), ...lines]]) });
  }
  return files;
}
