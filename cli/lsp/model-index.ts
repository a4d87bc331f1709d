import type { Property, Relation, ResolvedType, Structure } from "../../generator/index.ts";
import type { CompileResult } from "../../generator/pipeline.ts";

/** A property or relation written in a file, with the type (and structure) it belongs to. */
export type Member =
  | {
      readonly kind: "property";
      readonly name: string;
      readonly member: Property;
      readonly owner: ResolvedType;
      readonly structure?: Structure;
    }
  | { readonly kind: "relation"; readonly name: string; readonly member: Relation; readonly owner: ResolvedType };

/**
 * The compiled model looked up by place: which types and members each file declares. Paths
 * are absolute; `absolute` turns the model's display paths into them.
 */
export class ModelIndex {
  private readonly typesByFile = new Map<string, ResolvedType[]>();
  private readonly membersByFile = new Map<string, Member[]>();

  constructor(
    readonly compiled: CompileResult,
    readonly absolute: (displayPath: string) => string,
  ) {
    for (const type of compiled.model.types.values()) {
      push(this.typesByFile, absolute(type.decl.file), type);
      const add = (member: Member) => push(this.membersByFile, absolute(member.member.loc.file), member);
      for (const p of type.decl.properties.values()) add({ kind: "property", name: p.name, member: p, owner: type });
      for (const r of type.decl.relations.values()) add({ kind: "relation", name: r.name, member: r, owner: type });
      for (const s of type.decl.structures.values())
        for (const p of s.properties.values())
          add({ kind: "property", name: p.name, member: p, owner: type, structure: s });
    }
  }

  type(id: string): ResolvedType | undefined {
    return this.compiled.model.types.get(id);
  }

  /** The types declared in a file (one for a .schema file; a PHP script may hold several classes). */
  typesIn(path: string): readonly ResolvedType[] {
    return this.typesByFile.get(path) ?? [];
  }

  /**
   * The member named `name` written in a file, preferring one written on `line` (1-based). With
   * `sameLine` only one on that line counts: in JSON a name elsewhere on a line is just text.
   */
  memberAt(path: string, name: string | undefined, line: number, sameLine: boolean): Member | undefined {
    const members = this.membersByFile.get(path) ?? [];
    const named = members.filter((m) => m.name === name);
    const onLine = named.find((m) => m.member.loc.line === line);
    if (onLine || sameLine) return onLine;
    // In PHP the cursor may be on `$name` below the annotations, or on the annotation line itself.
    return named[0] ?? members.find((m) => m.member.loc.line === line);
  }

  /** The package a type was loaded from. */
  packageOf(typeId: string): string | undefined {
    return this.compiled.model.packages.find((p) => p.typeIds.includes(typeId))?.name;
  }
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
