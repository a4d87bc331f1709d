import { takeName } from "./naming.ts";

/**
 * The names a package's validators module declares for a type (see buildNameTable): its
 * structure checkers, member checker, operation parsers and, for a resource type, its create
 * and update validators and `TypeValidator` object. Unique in the package's module by
 * construction, whatever the type and structure names: `checkFooBarBaz` could be the checker
 * of structure `BarBaz` of `Foo` or of `Baz` of `FooBar`, `checkFooMembers` that of `Members`
 * of `Foo` or the member checker of `CheckFoo`.
 */
export interface ValidatorNames {
  /** Structure name -> its checker (`checkMailboxForwarding`). */
  readonly structures: ReadonlyMap<string, string>;
  /** The checker of the members the type declares (`mailboxMembers`), when it declares any. */
  readonly members?: string;
  /** Custom operation the type declares -> its parameter parser (`parseMailboxChangePassword`). */
  readonly parsers: ReadonlyMap<string, string>;
  /** `validateMailboxCreate`, `validateMailboxUpdate` and `mailboxValidator`, for a resource type. */
  readonly create?: string;
  readonly update?: string;
  readonly validator?: string;
}

/** What a type's validator names are made from. */
export interface ValidatorNameSource {
  /** The type's stem (TypeNames.tsName). */
  readonly tsName: string;
  /** Structure name -> its name in the types module (TypeNames.structures), in declaration order. */
  readonly structures: ReadonlyMap<string, string>;
  /** Whether the type declares properties or relations itself. */
  readonly hasMembers: boolean;
  /** The custom operations the type declares (TypeNames.operations), in declaration order. */
  readonly operations: ReadonlyMap<string, unknown>;
  readonly isResource: boolean;
}

const NONE: ReadonlyMap<string, string> = new Map();

function lowerFirst(name: string): string {
  return `${name[0]!.toLowerCase()}${name.slice(1)}`;
}

/**
 * The names a type's validators would take in a module of their own, in declaration order:
 * its structures' checkers, its member checker, its operations' parsers, then create, update
 * and validator (assemble reads them back in this order).
 */
function localValidatorNames(t: ValidatorNameSource): string[] {
  const out: string[] = [];
  for (const ts of t.structures.values()) out.push(ts.startsWith(t.tsName) ? `check${ts}` : `check${t.tsName}${ts}`);
  // Named with the type's stem, not `check...`, so that it reads apart from the structure checkers.
  if (t.hasMembers) out.push(`${lowerFirst(t.tsName)}Members`);
  for (const op of t.operations.keys())
    out.push(`parse${t.tsName}${op[0]!.toUpperCase()}${op.slice(1).replace(/[^A-Za-z0-9_$]/g, "_")}`);
  if (t.isResource)
    out.push(`validate${t.tsName}Create`, `validate${t.tsName}Update`, `${lowerFirst(t.tsName)}Validator`);
  return out;
}

function assemble(t: ValidatorNameSource, names: readonly string[]): ValidatorNames {
  let i = 0;
  let structures = NONE;
  if (t.structures.size > 0) {
    const map = new Map<string, string>();
    for (const s of t.structures.keys()) map.set(s, names[i++]!);
    structures = map;
  }
  const members = t.hasMembers ? names[i++]! : undefined;
  let parsers = NONE;
  if (t.operations.size > 0) {
    const map = new Map<string, string>();
    for (const op of t.operations.keys()) map.set(op, names[i++]!);
    parsers = map;
  }
  if (!t.isResource) return members === undefined ? { structures, parsers } : { structures, members, parsers };
  const resource = { create: names[i]!, update: names[i + 1]!, validator: names[i + 2]! };
  return members === undefined ? { structures, parsers, ...resource } : { structures, members, parsers, ...resource };
}

/**
 * The validator names of every type of a package, in the package's order. A name no other
 * validator of the package takes keeps its spelling (they are settled first); of a name taken
 * more than once, the first in declaration order keeps it and the others take the next free
 * `_2`, `_3`. So every name is declared once in the package's module, and the per-type modules
 * the controller compiles at run time use the very same names.
 */
export function packageValidatorNames(types: readonly ValidatorNameSource[]): ValidatorNames[] {
  const locals = types.map(localValidatorNames);
  const count = new Map<string, number>();
  let total = 0;
  for (const local of locals) {
    total += local.length;
    for (const name of local) count.set(name, (count.get(name) ?? 0) + 1);
  }
  if (count.size < total) {
    const taken = new Set<string>();
    for (const [name, k] of count) if (k === 1) taken.add(name);
    for (const local of locals) {
      for (let i = 0; i < local.length; i++) {
        const name = local[i]!;
        if (count.get(name) === 1) continue;
        local[i] = takeName(name, taken);
      }
    }
  }
  return types.map((t, i) => assemble(t, locals[i]!));
}
