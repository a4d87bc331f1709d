import { posix } from "node:path";
import type { GeneratedFile } from "../../host.ts";
import type { ApsModel } from "../../model/model.ts";
import { banner, packageBanner, render } from "../render.ts";
import { buildNameTable, type TypeNames } from "../types/name-table.ts";
import { packageRuntime, type RuntimeSpecifier } from "./module-scope.ts";
import { validatorModuleView } from "./validator-module.ts";

/** Options of {@link emitValidators}. */
export interface ValidatorEmitOptions {
  /** How generated modules import `runtime/common/*` (default: `aps-gen/runtime/common/*`). */
  readonly runtime?: RuntimeSpecifier;
}

/** Path of the module that maps every type id to its validators. */
export const VALIDATOR_REGISTRY = "validators/index.gen.ts";

/**
 * Emits one validator module per type that has something to validate
 * (`validators/<package>/<type>.gen.ts`), an index per package and `validators/index.gen.ts`,
 * the registry of every resource type's `TypeValidator` by type id.
 */
export function emitValidators(model: ApsModel, names: ReadonlyMap<string, TypeNames> = buildNameTable(model), options: ValidatorEmitOptions = {}): GeneratedFile[] {
  const runtime = options.runtime ?? packageRuntime;
  const files: GeneratedFile[] = [];
  const registry: { module: string; name: string }[] = [];
  for (const pkg of model.packages) {
    const modules: { module: string; exports: string[] }[] = [];
    for (const id of pkg.typeIds) {
      const view = validatorModuleView(model.types.get(id)!, model, names, runtime);
      if (!view) continue;
      files.push({ path: view.modulePath, content: render("validators/validator-module", view) });
      const exported = [...view.blocks.join("\n").matchAll(/^export (?:function|const) ([A-Za-z0-9_$]+)/gm)].map((m) => m[1]!);
      modules.push({ module: `./${posix.basename(view.modulePath).replace(/\.ts$/, ".js")}`, exports: exported });
      if (view.validator) registry.push({ module: `./${view.modulePath.slice("validators/".length).replace(/\.ts$/, ".js")}`, name: view.validator });
    }
    if (modules.length === 0) continue;
    // Two versions of one type in a package share names; the later ones get a numbered alias.
    const seen = new Set<string>();
    const indexModules = modules.map((m) => ({
      module: m.module,
      names: m.exports
        .map((n) => {
          let alias = n;
          for (let k = 2; seen.has(alias); k++) alias = `${n}_${k}`;
          seen.add(alias);
          return alias === n ? n : `${n} as ${alias}`;
        })
        .join(", "),
    }));
    files.push({ path: `validators/${pkg.name}/index.gen.ts`, content: render("validators/package-index", { banner: packageBanner(model, pkg), modules: indexModules }) });
  }
  const taken = new Set<string>();
  const entries = registry.map((r) => {
    let local = r.name;
    for (let k = 2; taken.has(local); k++) local = `${r.name}_${k}`;
    taken.add(local);
    return { ...r, local };
  });
  files.push({
    path: VALIDATOR_REGISTRY,
    content: render("validators/registry", {
      banner: banner("every input package"),
      runtimeTypes: runtime("type-validator"),
      imports: entries.map((e) => ({ module: e.module, names: e.local === e.name ? e.name : `${e.name} as ${e.local}` })),
      entries: entries.map((e) => ({ name: e.local })),
    }),
  });
  return files;
}
