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
  /** The custom operations the type declares, in declaration order. */
  readonly operations: Iterable<string>;
  readonly isResource: boolean;
}

/** Which of a type's validator names a name is: a structure's checker, an operation's parser, or one of the type's. */
type Slot = readonly [kind: "structure" | "parser", key: string] | readonly [kind: "members" | "create" | "update" | "validator"];

function lowerFirst(name: string): string {
  return `${name[0]!.toLowerCase()}${name.slice(1)}`;
}

/** The names a type's validators would take in a module of their own, in declaration order. */
function localValidatorNames(t: ValidatorNameSource): { slot: Slot; name: string }[] {
  const out: { slot: Slot; name: string }[] = [];
  for (const [s, ts] of t.structures) out.push({ slot: ["structure", s], name: ts.startsWith(t.tsName) ? `check${ts}` : `check${t.tsName}${ts}` });
  // Named with the type's stem, not `check...`, so that it reads apart from the structure checkers.
  if (t.hasMembers) out.push({ slot: ["members"], name: `${lowerFirst(t.tsName)}Members` });
  for (const op of t.operations) out.push({ slot: ["parser", op], name: `parse${t.tsName}${op[0]!.toUpperCase()}${op.slice(1).replace(/[^A-Za-z0-9_$]/g, "_")}` });
  if (t.isResource) {
    out.push({ slot: ["create"], name: `validate${t.tsName}Create` });
    out.push({ slot: ["update"], name: `validate${t.tsName}Update` });
    out.push({ slot: ["validator"], name: `${lowerFirst(t.tsName)}Validator` });
  }
  return out;
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
  for (const local of locals) for (const { name } of local) count.set(name, (count.get(name) ?? 0) + 1);
  const taken = new Set<string>();
  for (const [name, k] of count) if (k === 1) taken.add(name);
  return locals.map((local) => {
    const structures = new Map<string, string>();
    const parsers = new Map<string, string>();
    const out: { -readonly [K in keyof ValidatorNames]: ValidatorNames[K] } = { structures, parsers };
    for (const { slot, name } of local) {
      let unique = name;
      if (count.get(name) !== 1) {
        for (let k = 2; taken.has(unique); k++) unique = `${name}_${k}`;
        taken.add(unique);
      }
      const [kind, key] = slot;
      if (kind === "structure") structures.set(key!, unique);
      else if (kind === "parser") parsers.set(key!, unique);
      else out[kind] = unique;
    }
    return out;
  });
}
