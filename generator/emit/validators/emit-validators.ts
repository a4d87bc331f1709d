import { takeName } from "../core/naming.ts";
import type { GeneratedFile } from "../../host.ts";
import type { ApsModel, ResolvedType } from "../../model/model.ts";
import { banner, packageBanner, typeBanner } from "../core/banner.ts";
import { CodeWriter, fileText } from "../core/code-writer.ts";
import { PRINT_WIDTH } from "../core/format-options.ts";
import { specifierList } from "../core/import-set.ts";
import { textWidth } from "../core/text-width.ts";
import {
  ModuleScope,
  packageRuntime,
  perTypeValidatorModulePath,
  validatorModulePath,
  type RuntimeSpecifier,
  type ValidatorLayout,
} from "../core/module-scope.ts";
import { buildNameTable, type TypeNames } from "../core/name-table.ts";
import { memberOwners } from "./member-checker.ts";
import { validatorDeclarations, writeTypeValidators } from "./validator-module.ts";

/** Options of {@link emitValidators}. */
export interface ValidatorEmitOptions {
  /** How generated modules import `runtime/common/*` (default: `aps-gen/runtime/common/*`). */
  readonly runtime?: RuntimeSpecifier;
  /**
   * Which module each type's validators go to (default: validatorModulePath, one module per
   * package). Types of one module are written in their package's order.
   */
  readonly layout?: ValidatorLayout;
}

/** Path of the module that maps every type id to its validators. */
export const VALIDATOR_REGISTRY = "validators/index.gen.ts";

/**
 * Emits the validators of every type that has something to validate into the module the
 * layout gives it: by default one module per package, `validators/<package>/index.gen.ts`
 * (the controller compiles them at run time a module per type, perTypeValidatorModulePath);
 * and `validators/index.gen.ts`, the registry of every resource type's `TypeValidator` by
 * type id. A type's validators are the same code in either layout (but for the numbers of
 * module constants and the aliases of imports): the names are the name table's, unique in the
 * package, and a module imports only what another module declares.
 */
export function emitValidators(
  model: ApsModel,
  names: ReadonlyMap<string, TypeNames> = buildNameTable(model),
  options: ValidatorEmitOptions = {},
): GeneratedFile[] {
  const runtime = options.runtime ?? packageRuntime;
  const layout = options.layout ?? validatorModulePath;
  const owners = memberOwners(model);
  const files: GeneratedFile[] = [];
  const registry: { module: string; name: string }[] = [];
  for (const pkg of model.packages) {
    // The types of each module, in the package's order (a layout keeps a package's types apart from others').
    const modules = new Map<string, { type: ResolvedType; declared: string[] }[]>();
    for (const id of pkg.typeIds) {
      const own = names.get(id)!;
      const declared = validatorDeclarations(own);
      if (declared.length === 0) continue;
      const path = layout(own);
      let group = modules.get(path);
      if (!group) modules.set(path, (group = []));
      group.push({ type: model.types.get(id)!, declared });
    }
    for (const [path, group] of modules) {
      const scope = new ModuleScope(path, names, runtime, layout);
      // Every name the module declares, before anything is imported: no import may take one.
      for (const t of group) for (const n of t.declared) scope.reserve(n);
      const w = new CodeWriter();
      for (const t of group) {
        const validator = writeTypeValidators(w, t.type, model, names, scope, owners);
        if (validator)
          registry.push({ module: `./${path.slice("validators/".length).replace(/\.ts$/, ".js")}`, name: validator });
      }
      const only = group.length === 1 && path === perTypeValidatorModulePath(names.get(group[0]!.type.id)!);
      const head = only ? typeBanner(model, group[0]!.type) : packageBanner(model, pkg);
      files.push({
        path,
        content: fileText([[head, ...scope.renderImports()], scope.renderConstants(), w.toString()]),
      });
    }
  }
  const taken = new Set<string>();
  const entries = registry.map((r) => ({ ...r, local: takeName(r.name, taken) }));
  const registryText = fileText([
    [
      banner("every input package"),
      `import type { TypeValidator } from "${runtime("type-validator")}";`,
      ...registryImports(entries),
    ],
    [
      "/** Every resource type's validators, by type id: what the controller looks up on each write. */",
      // Two or more entries always go one a line (Prettier's rule for a list of pairs); one or none on the line if it fits.
      ...registryMap(entries.map((e) => `[${e.local}.typeId, ${e.local}]`)),
    ],
  ]);
  files.push({ path: VALIDATOR_REGISTRY, content: registryText });
  return files;
}

/** One import statement per module, naming its validators in order. */
function registryImports(entries: readonly { module: string; name: string; local: string }[]): string[] {
  const byModule = new Map<string, string[]>();
  for (const e of entries) {
    let list = byModule.get(e.module);
    if (!list) byModule.set(e.module, (list = []));
    list.push(e.local === e.name ? e.name : `${e.name} as ${e.local}`);
  }
  return [...byModule].map(([module, list]) => specifierList("import ", list, ` from "${module}";`));
}

function registryMap(entries: readonly string[]): string[] {
  const head = "export const validators: ReadonlyMap<string, TypeValidator> = new Map<string, TypeValidator>([";
  const line = `${head}${entries.join(", ")}]);`;
  if (entries.length < 2 && textWidth(line) <= PRINT_WIDTH) return [line];
  return [head, ...entries.map((e) => `  ${e},`), "]);"];
}
