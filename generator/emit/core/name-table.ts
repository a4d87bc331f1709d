import { applicationRootOf } from "../../model/application-root.ts";
import { isBaseOperation } from "../../model/base-operations.ts";
import type { ApsModel, Operation, Property, ResolvedType } from "../../model/model.ts";
import { packageValidatorNames, type ValidatorNames } from "./validator-names.ts";
import { enumTsName, kebabCase, moduleFileNames, pascalCase, structureTsName, takeName, typeTsName } from "./naming.ts";

/** The names of the types a custom operation's module declares for it; absent when it has none. */
export interface OperationNames {
  /** `MailboxChangePasswordParams`, when the operation has parameters. */
  readonly params?: string;
  /** `MailboxChangePasswordReply`, when it answers a JSON type. */
  readonly reply?: string;
  /** `MailboxChangePasswordError`, when it declares a JSON error body. */
  readonly error?: string;
}

/**
 * Where a type's generated code lives and the names its package's types module declares for it.
 * Every name is unique in its package's module (see buildNameTable): TypeScript would merge two
 * `interface Foo` declarations of one module without a word.
 */
export interface TypeNames {
  readonly typeId: string;
  /** The types module of the type's package, below the output folder: `types/core/index.gen.ts`. */
  readonly typesModule: string;
  /**
   * The stem of the type's own validators module, which the controller compiles at run time
   * (perTypeValidatorModulePath): `core/resource` (`validators/core/resource.gen.ts`).
   */
  readonly moduleStem: string;
  /**
   * The stem other emitters name the type's functions with (`Mailbox`: `validateMailboxCreate`,
   * `getMailbox`); the version is part of it when a package holds two versions of the type.
   */
  readonly tsName: string;
  /** The read shape (`Mailbox`), usually `tsName`. */
  readonly read: string;
  /** `MailboxCreate` and `MailboxUpdate`, for a resource type. */
  readonly create?: string;
  readonly update?: string;
  /** The type id constant, `MailboxTypeId`. */
  readonly typeIdConst: string;
  /** `MailboxSettings`, for the application root type of its package. */
  readonly settings?: string;
  /** Structure name -> declared TypeScript name. */
  readonly structures: ReadonlyMap<string, string>;
  /** Enum-valued property -> the name of its enum: keys from enumKey. */
  readonly enums: ReadonlyMap<string, string>;
  /**
   * The custom operations the type declares itself, by name: the params, reply and error types
   * its package's types module declares once, which the client, the connector and the validators import.
   */
  readonly operations: ReadonlyMap<string, OperationNames>;
  /** The names its package's validators module declares for it, unique in that module. */
  readonly validators: ValidatorNames;
}

/** The key of an enum in TypeNames.enums: a property of a structure, or of the type (its own or inherited). */
export function enumKey(structure: string | undefined, property: string): string {
  return structure === undefined ? `.${property}` : `${structure}.${property}`;
}

/** Names of every type of the model, computed once so all emitters agree on them. */
export function buildNameTable(model: ApsModel): Map<string, TypeNames> {
  const table = new Map<string, TypeNames>();
  for (const pkg of model.packages) {
    const decls = pkg.typeIds.map((id) => model.types.get(id)!.decl);
    const files = moduleFileNames(decls);
    const root = applicationRootOf(pkg, model);
    const typesModule = `types/${pkg.name}/index.gen.ts`;
    const locals = decls.map((decl) => localNames(model.types.get(decl.id)!, model, files.get(decl.id)!, root));
    const renames = packageRenames(locals);
    const structures = locals.map((local, i) => {
      const renamed = renames[i];
      return renamed ? remap(local.structures, (name) => renamed.get(name) ?? name) : local.structures;
    });
    const validators = packageValidatorNames(
      locals.map((local, i) => ({
        tsName: local.tsName,
        structures: structures[i]!,
        hasMembers: local.type.decl.properties.size > 0 || local.type.decl.relations.size > 0,
        operations: local.operations,
        isResource: local.type.isResource,
      })),
    );
    for (let i = 0; i < locals.length; i++) {
      const local = locals[i]!;
      // Most names stay as the type's own module would have them: its maps are used as they are.
      const renamed = renames[i];
      const n = (name: string) => renamed?.get(name) ?? name;
      table.set(local.type.id, {
        typeId: local.type.id,
        typesModule,
        moduleStem: `${pkg.name}/${files.get(local.type.id)!}`,
        tsName: local.tsName,
        read: n(local.tsName),
        ...(local.create ? { create: n(local.create), update: n(local.update!) } : {}),
        typeIdConst: n(`${local.tsName}TypeId`),
        ...(local.settings ? { settings: n(local.settings) } : {}),
        structures: structures[i]!,
        enums: renamed ? remap(local.enums, n) : local.enums,
        operations: renamed
          ? new Map(
              [...local.operations].map(([op, o]) => [
                op,
                {
                  ...(o.params ? { params: n(o.params) } : {}),
                  ...(o.reply ? { reply: n(o.reply) } : {}),
                  ...(o.error ? { error: n(o.error) } : {}),
                },
              ]),
            )
          : local.operations,
        validators: validators[i]!,
      });
    }
  }
  return table;
}

/** The names one type declares, as its own module would: unique among themselves, not yet in the package. */
interface LocalNames {
  readonly type: ResolvedType;
  readonly tsName: string;
  readonly create?: string;
  readonly update?: string;
  readonly settings?: string;
  readonly structures: Map<string, string>;
  readonly enums: Map<string, string>;
  readonly operations: Map<string, OperationNames>;
  /** Every name above, in declaration order. */
  readonly all: string[];
}

function remap(names: ReadonlyMap<string, string>, n: (name: string) => string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, name] of names) out.set(key, n(name));
  return out;
}

/** Names given in order, each clear of those before it (`_2`, `_3`). */
class NameList {
  readonly taken = new Set<string>();
  readonly all: string[] = [];

  unique(name: string): string {
    const n = takeName(name, this.taken);
    this.all.push(n);
    return n;
  }
}

function localNames(type: ResolvedType, model: ApsModel, file: string, root: ResolvedType | undefined): LocalNames {
  const decl = type.decl;
  // Two versions of a type in one package (moduleFileNames gave them `-v<version>` files) take
  // the version into their name too: `MailboxV1_0`, `MailboxV2_0`.
  const versioned = file !== (kebabCase(decl.name) || "type");
  const tsName = versioned
    ? `${typeTsName(decl)}V${decl.id.slice(decl.id.lastIndexOf("/") + 1).replace(/[^A-Za-z0-9]/g, "_")}`
    : typeTsName(decl);
  // Names are given in this order, each clear of those before it: an enum of a property
  // `create` must not take `MailboxCreate`.
  const list = new NameList();
  list.unique(tsName);
  const create = type.isResource ? list.unique(`${tsName}Create`) : undefined;
  const update = type.isResource ? list.unique(`${tsName}Update`) : undefined;
  list.unique(`${tsName}TypeId`);
  const settings = root?.id === type.id ? list.unique(`${tsName}Settings`) : undefined;
  // Reserved even when not declared, as structureTsName avoids them.
  list.taken.add(`${tsName}Create`).add(`${tsName}Update`);
  const structures = new Map<string, string>();
  for (const s of decl.structures.values()) structures.set(s.name, list.unique(structureTsName(tsName, s)));
  const enums = new Map<string, string>();
  const seen = new Set<Property>();
  for (const s of decl.structures.values()) {
    for (const p of s.properties.values()) {
      if (!p.enum?.length || seen.has(p)) continue;
      seen.add(p);
      enums.set(enumKey(s.name, p.name), list.unique(enumTsName(structures.get(s.name)!, p.name)));
    }
  }
  for (const p of type.properties.values()) {
    if (!p.enum?.length || seen.has(p)) continue;
    seen.add(p);
    enums.set(enumKey(undefined, p.name), list.unique(enumTsName(tsName, p.name)));
  }
  const custom = [...decl.operations.values()].filter((op) => !isBaseOperation(op, type, model));
  const operations = new Map<string, OperationNames>();
  for (const op of custom) {
    const stem = `${tsName}${pascalCase(op.name)}`;
    operations.set(op.name, {
      ...(op.parameters.length > 0 ? { params: list.unique(`${stem}Params`) } : {}),
      ...(op.response?.type && op.response.contentType === undefined ? { reply: list.unique(`${stem}Reply`) } : {}),
      ...(op.errorResponse?.type && op.errorResponse.contentType === undefined
        ? { error: list.unique(`${stem}Error`) }
        : {}),
    });
  }
  return {
    type,
    tsName,
    ...(create ? { create, update } : {}),
    ...(settings ? { settings } : {}),
    structures,
    enums,
    operations,
    all: list.all,
  };
}

/**
 * The names the types module of a package declares, per type, where they differ from the type's
 * own (undefined: none does): a name another type of the package declares too (two types with
 * an `Address` structure) is prefixed with the type's name (`CustomerAddress`, `OrderAddress`),
 * as the package index of per-type modules exported them; a name still taken (a type declaring
 * `CustomerAddress` itself, a prefix making the same name twice) takes `_2`, `_3`. Names
 * declared once keep their spelling: they are settled first.
 */
function packageRenames(locals: readonly LocalNames[]): (Map<string, string> | undefined)[] {
  // Each type's names are unique among themselves (NameList).
  const count = new Map<string, number>();
  for (const local of locals) for (const name of local.all) count.set(name, (count.get(name) ?? 0) + 1);
  const out: (Map<string, string> | undefined)[] = locals.map(() => undefined);
  if (count.size === locals.reduce((sum, l) => sum + l.all.length, 0)) return out;
  const taken = new Set<string>();
  for (const [name, k] of count) if (k === 1) taken.add(name);
  locals.forEach((local, i) => {
    for (const name of local.all) {
      if (count.get(name) === 1) continue;
      (out[i] ??= new Map()).set(name, takeName(`${local.tsName}${name}`, taken));
    }
  });
  return out;
}

/** The operation types of `op` (declared by the type `op.declaredIn`), or none when not known. */
export function operationNamesOf(
  names: ReadonlyMap<string, TypeNames>,
  op: Operation,
): { readonly owner: TypeNames; readonly names: OperationNames } | undefined {
  const owner = names.get(op.declaredIn);
  const own = owner?.operations.get(op.name);
  return owner && own ? { owner, names: own } : undefined;
}

/** Every name the types module declares for a type: its interfaces and type aliases (types), its type id and enums (values). */
export function declaredNames(own: TypeNames): {
  readonly types: readonly string[];
  readonly values: readonly string[];
} {
  const operations = [...own.operations.values()].flatMap((o) =>
    [o.params, o.reply, o.error].filter((n): n is string => n !== undefined),
  );
  const types = [
    ...own.structures.values(),
    own.read,
    ...(own.create ? [own.create, own.update!] : []),
    ...(own.settings ? [own.settings] : []),
    ...operations,
  ];
  return { types, values: [own.typeIdConst, ...own.enums.values()] };
}
