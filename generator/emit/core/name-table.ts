import { isBaseOperation } from "../../model/base-operations.ts";
import type { ApsModel, Operation, TypeDeclaration } from "../../model/model.ts";
import { enumTsName, moduleFileNames, pascalCase, structureTsName, typeTsName } from "./naming.ts";

/** The names of the types a custom operation's module declares for it; absent when it has none. */
export interface OperationNames {
  /** `MailboxChangePasswordParams`, when the operation has parameters. */
  readonly params?: string;
  /** `MailboxChangePasswordReply`, when it answers a JSON type. */
  readonly reply?: string;
  /** `MailboxChangePasswordError`, when it declares a JSON error body. */
  readonly error?: string;
}

/** Where a type's generated module lives and what it exports. */
export interface TypeNames {
  readonly typeId: string;
  /** Path of the module below the output folder, e.g. `types/core/resource.gen.ts`. */
  readonly modulePath: string;
  readonly tsName: string;
  /** Structure name -> exported TypeScript name. */
  readonly structures: ReadonlyMap<string, string>;
  /**
   * The custom operations the type declares itself, by name: the params, reply and error types
   * its module exports once, which the client, the connector and the validators import.
   */
  readonly operations: ReadonlyMap<string, OperationNames>;
}

/** Names of every type of the model, computed once so all emitters agree on them. */
export function buildNameTable(model: ApsModel): Map<string, TypeNames> {
  const table = new Map<string, TypeNames>();
  for (const pkg of model.packages) {
    const decls = pkg.typeIds.map((id) => model.types.get(id)!.decl);
    const files = moduleFileNames(decls);
    for (const decl of decls) {
      const tsName = typeTsName(decl);
      const structures = new Map<string, string>();
      for (const s of decl.structures.values()) structures.set(s.name, structureTsName(decl, s));
      const resolved = model.types.get(decl.id)!;
      const custom = [...decl.operations.values()].filter((op) => !isBaseOperation(op, resolved, model));
      table.set(decl.id, {
        typeId: decl.id,
        modulePath: `types/${pkg.name}/${files.get(decl.id)!}.gen.ts`,
        tsName,
        structures,
        operations: operationNames(decl, tsName, structures, custom),
      });
    }
  }
  return table;
}

/** The names of the module's operation types, kept clear of every other name the module exports. */
function operationNames(decl: TypeDeclaration, tsName: string, structures: ReadonlyMap<string, string>, custom: readonly Operation[]): Map<string, OperationNames> {
  const out = new Map<string, OperationNames>();
  if (custom.length === 0) return out;
  const taken = new Set([tsName, `${tsName}Create`, `${tsName}Update`, `${tsName}TypeId`, `${tsName}Settings`, ...structures.values()]);
  for (const p of decl.properties.values()) if (p.enum?.length) taken.add(enumTsName(tsName, p.name));
  for (const s of decl.structures.values()) for (const p of s.properties.values()) if (p.enum?.length) taken.add(enumTsName(structures.get(s.name)!, p.name));
  const unique = (name: string) => {
    let n = name;
    for (let k = 2; taken.has(n); k++) n = `${name}_${k}`;
    taken.add(n);
    return n;
  };
  for (const op of custom) {
    const stem = `${tsName}${pascalCase(op.name)}`;
    out.set(op.name, {
      ...(op.parameters.length > 0 ? { params: unique(`${stem}Params`) } : {}),
      ...(op.response?.type && op.response.contentType === undefined ? { reply: unique(`${stem}Reply`) } : {}),
      ...(op.errorResponse?.type && op.errorResponse.contentType === undefined ? { error: unique(`${stem}Error`) } : {}),
    });
  }
  return out;
}

/** The operation types of `op` (declared by the type `op.declaredIn`), or none when not known. */
export function operationNamesOf(names: ReadonlyMap<string, TypeNames>, op: Operation): { readonly owner: TypeNames; readonly names: OperationNames } | undefined {
  const owner = names.get(op.declaredIn);
  const own = owner?.operations.get(op.name);
  return owner && own ? { owner, names: own } : undefined;
}
