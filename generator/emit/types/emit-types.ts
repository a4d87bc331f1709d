import type { ApsModel } from "../../model/model.ts";
import type { GeneratedFile } from "../../host.ts";
import { applicationRootOf } from "../../model/application-root.ts";
import { packageBanner } from "../core/banner.ts";
import { CodeWriter, fileText } from "../core/code-writer.ts";
import { ImportSet } from "../core/import-set.ts";
import { buildNameTable, declaredNames, type TypeNames } from "../core/name-table.ts";
import { writeTypeDeclarations } from "./type-module.ts";

/**
 * Emits one module per package, `types/<package>/index.gen.ts`, declaring every type of the
 * package (in the package's order) under the names of the name table, which are unique in the
 * package by construction. A pure function of the model: same model, same bytes.
 */
export function emitTypes(
  model: ApsModel,
  names: ReadonlyMap<string, TypeNames> = buildNameTable(model),
): GeneratedFile[] {
  const files: GeneratedFile[] = [];
  for (const pkg of model.packages) {
    if (pkg.typeIds.length === 0) continue;
    const root = applicationRootOf(pkg, model);
    const own = pkg.typeIds.map((id) => names.get(id)!);
    const declared = own.flatMap((n) => {
      const { types, values } = declaredNames(n);
      return [...types, ...values];
    });
    const path = own[0]!.typesModule;
    const imports = new ImportSet(path, declared);
    const w = new CodeWriter();
    for (const id of pkg.typeIds) writeTypeDeclarations(w, model.types.get(id)!, model, names, imports, root);
    // Docs end in a newline of their own and descriptions may end in spaces: tidy both.
    const body = w
      .toString()
      .replace(/[ \t]+$/gm, "")
      .replace(/\n\n+/g, "\n\n");
    files.push({ path, content: fileText([[packageBanner(model, pkg), ...imports.render()], body]) });
  }
  return files;
}
