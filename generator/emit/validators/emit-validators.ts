import { posix } from "node:path";
import type { GeneratedFile } from "../../host.ts";
import type { ApsModel } from "../../model/model.ts";
import { banner, packageBanner } from "../core/banner.ts";
import { fileText } from "../core/code-writer.ts";
import { PRINT_WIDTH } from "../core/format-options.ts";
import { specifierList } from "../core/import-set.ts";
import { textWidth } from "../core/text-width.ts";
import { packageRuntime, type RuntimeSpecifier } from "../core/module-scope.ts";
import { buildNameTable, type TypeNames } from "../core/name-table.ts";
import { memberOwners } from "./member-checker.ts";
import { validatorModule } from "./validator-module.ts";

/** Options of {@link emitValidators}. */
export interface ValidatorEmitOptions {
  /** How generated modules import `runtime/common/*` (default: `aps-gen/runtime/common/*`). */
  readonly runtime?: RuntimeSpecifier;
}

/** Path of the module that maps every type id to its validators. */
const VALIDATOR_REGISTRY = "validators/index.gen.ts";

/**
 * Emits one validator module per type that has something to validate
 * (`validators/<package>/<type>.gen.ts`), an index per package and `validators/index.gen.ts`,
 * the registry of every resource type's `TypeValidator` by type id.
 */
export function emitValidators(model: ApsModel, names: ReadonlyMap<string, TypeNames> = buildNameTable(model), options: ValidatorEmitOptions = {}): GeneratedFile[] {
  const runtime = options.runtime ?? packageRuntime;
  const owners = memberOwners(model);
  const files: GeneratedFile[] = [];
  const registry: { module: string; name: string }[] = [];
  for (const pkg of model.packages) {
    const lines: string[] = [];
    // Two versions of one type in a package share names; the later ones get a numbered alias.
    const seen = new Set<string>();
    for (const id of pkg.typeIds) {
      const module = validatorModule(model.types.get(id)!, model, names, runtime, owners);
      if (!module) continue;
      files.push({ path: module.modulePath, content: module.content });
      const exported = module.exports.map((n) => {
        let alias = n;
        for (let k = 2; seen.has(alias); k++) alias = `${n}_${k}`;
        seen.add(alias);
        return alias === n ? n : `${n} as ${alias}`;
      });
      lines.push(specifierList("export ", exported, ` from "./${posix.basename(module.modulePath).replace(/\.ts$/, ".js")}";`));
      if (module.validator) registry.push({ module: `./${module.modulePath.slice("validators/".length).replace(/\.ts$/, ".js")}`, name: module.validator });
    }
    if (lines.length) files.push({ path: `validators/${pkg.name}/index.gen.ts`, content: fileText([[packageBanner(model, pkg), ...lines]]) });
  }
  const taken = new Set<string>();
  const entries = registry.map((r) => {
    let local = r.name;
    for (let k = 2; taken.has(local); k++) local = `${r.name}_${k}`;
    taken.add(local);
    return { ...r, local };
  });
  const registryText = fileText([
    [banner("every input package"), `import type { TypeValidator } from "${runtime("type-validator")}";`, ...entries.map((e) => `import { ${e.local === e.name ? e.name : `${e.name} as ${e.local}`} } from "${e.module}";`)],
    [
      "/** Every resource type's validators, by type id: what the controller looks up on each write. */",
      // Two or more entries always go one a line (Prettier's rule for a list of pairs); one or none on the line if it fits.
      ...registryMap(entries.map((e) => `[${e.local}.typeId, ${e.local}]`)),
    ],
  ]);
  files.push({ path: VALIDATOR_REGISTRY, content: registryText });
  return files;
}

function registryMap(entries: readonly string[]): string[] {
  const head = "export const validators: ReadonlyMap<string, TypeValidator> = new Map<string, TypeValidator>([";
  const line = `${head}${entries.join(", ")}]);`;
  if (entries.length < 2 && textWidth(line) <= PRINT_WIDTH) return [line];
  return [head, ...entries.map((e) => `  ${e},`), "]);"];
}
