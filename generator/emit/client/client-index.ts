import type { GeneratedFile } from "../../host.ts";
import type { ApsModel } from "../../model/model.ts";
import { pascalCase } from "../core/naming.ts";
import { banner } from "../core/banner.ts";
import { moduleSpecifier, specifierList } from "../core/import-set.ts";
import { declaredNames, type TypeNames } from "../core/name-table.ts";

/** Where the index sits below the output folder. */
const CLIENT_INDEX = "client/index.gen.ts";

/** A name a generated module exports, which the index re-exports. */
export interface IndexedName {
  /** The module, below the output folder. */
  readonly path: string;
  readonly packageName: string;
  /** TypeScript name of the type the name belongs to. */
  readonly tsName: string;
  readonly name: string;
  /** A value (function, constant, enum) rather than a type only. */
  readonly value: boolean;
}

interface Entry {
  /** Where the name is declared (shared by the entries of one type). */
  readonly module: Pick<IndexedName, "path" | "packageName" | "tsName">;
  readonly name: string;
  readonly value: boolean;
  alias: string;
}

/**
 * `client/index.gen.ts`: one import for a script. It re-exports the client runtime
 * (`aps-gen/client`: createClient, ApsError, administration, catalog, ...) and, by name, every
 * client function and every type, type id and enum of the generated modules. Named exports take
 * precedence over `export *`, so a generated name hides a runtime name of the same spelling
 * (the core type `Subscription`; the runtime's subscription record is also `EventSubscription`).
 * A name two generated modules export is exported under longer names: with its type's name in
 * front within one package, then with its package's.
 */
export function clientIndex(
  model: ApsModel,
  names: ReadonlyMap<string, TypeNames>,
  clients: readonly IndexedName[],
): GeneratedFile {
  const entries: Entry[] = [];
  for (const pkg of model.packages) {
    for (const id of pkg.typeIds) {
      const own = names.get(id)!;
      const { types, values } = declaredNames(own);
      const at = { path: own.typesModule, packageName: pkg.name, tsName: own.tsName };
      for (const name of types) entries.push({ module: at, name, value: false, alias: name });
      for (const name of values) entries.push({ module: at, name, value: true, alias: name });
    }
  }
  for (const c of clients) entries.push({ module: c, name: c.name, value: c.value, alias: c.name });
  resolveClashes(
    entries,
    (e) => `${e.module.packageName}\n${e.alias}`,
    (e) => prefixed(e.module.tsName, e.alias),
  );
  resolveClashes(
    entries,
    (e) => e.alias,
    (e) => prefixed(pascalCase(e.module.packageName.slice(e.module.packageName.lastIndexOf("/") + 1)), e.alias),
  );
  const seen = new Map<string, number>();
  for (const e of entries) {
    const n = (seen.get(e.alias) ?? 0) + 1;
    seen.set(e.alias, n);
    if (n > 1) e.alias = `${e.alias}_${n}`;
  }

  const lines = [
    banner("every input package"),
    "/**",
    " * One import for scripts: the client runtime (aps-gen/client) and every generated client",
    " * function, type, type id and enum. A generated name hides a runtime name of the same spelling.",
    " */",
    'export * from "aps-gen/client";',
  ];
  // The types of a package come from one module: one statement for all of them.
  const byModule = new Map<string, Entry[]>();
  for (const e of entries) {
    const list = byModule.get(e.module.path);
    if (list) list.push(e);
    else byModule.set(e.module.path, [e]);
  }
  for (const [path, own] of byModule) {
    const spec = moduleSpecifier(CLIENT_INDEX, path);
    const named = (e: Entry) => (e.alias === e.name ? e.name : `${e.name} as ${e.alias}`);
    const types = own.filter((e) => !e.value);
    const values = own.filter((e) => e.value);
    if (values.length === 0) lines.push(specifierList("export type ", types.map(named), ` from "${spec}";`));
    else
      lines.push(
        specifierList("export ", [...values.map(named), ...types.map((e) => `type ${named(e)}`)], ` from "${spec}";`),
      );
  }
  return { path: CLIENT_INDEX, content: `${lines.join("\n")}\n` };
}

/** Gives every entry whose `key` is shared by another a longer alias. */
function resolveClashes(entries: readonly Entry[], key: (e: Entry) => string, longer: (e: Entry) => string): void {
  // Each key made once: they are new strings (hashed on every lookup), tens of thousands in a large build.
  const keys = entries.map(key);
  const count = new Map<string, number>();
  for (const k of keys) count.set(k, (count.get(k) ?? 0) + 1);
  for (let i = 0; i < entries.length; i++) if (count.get(keys[i]!)! > 1) entries[i]!.alias = longer(entries[i]!);
}

/** `Tenant` + `ErrorInfo` -> `TenantErrorInfo`; `Cloudmail` + `provisionTenant` -> `cloudmailProvisionTenant`. */
export function prefixed(prefix: string, name: string): string {
  return /^[a-z]/.test(name)
    ? `${prefix[0]!.toLowerCase()}${prefix.slice(1)}${name[0]!.toUpperCase()}${name.slice(1)}`
    : `${prefix}${name}`;
}
