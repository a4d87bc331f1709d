/**
 * A type as the console works with it: its own document (`GET /aps/2/types/<id>`, own members
 * only, parents named in `implements`) merged with its ancestors' documents into the members the
 * type really has, each marked with the type that declared it. The merge follows the generator's
 * (generator/model/build-model.ts): parents in `implements` order, the first parent's member wins
 * over a later parent's, and an own member replaces an inherited one whole (docs/aps/types.md).
 */
import type { TypeInfo } from "../../../runtime/common/type-info.ts";

/** A property, structure member, array items or parameter as a declaration writes it. */
export interface ValueDecl {
  readonly type?: string;
  readonly items?: ValueDecl | null;
  readonly title?: string;
  readonly description?: string;
  readonly required?: boolean;
  readonly readonly?: boolean;
  readonly final?: boolean;
  readonly encrypted?: boolean;
  readonly format?: string;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  readonly enum?: readonly unknown[];
  readonly enumTitles?: readonly string[];
  readonly default?: unknown;
  readonly unit?: string;
  readonly kind?: "path" | "query" | "body";
  readonly contentType?: string;
}

interface RelationDecl {
  readonly type: string;
  readonly required?: boolean;
  readonly collection?: boolean;
  readonly description?: string;
}

interface StructureDecl {
  readonly type?: string;
  readonly description?: string;
  readonly properties?: Readonly<Record<string, ValueDecl>>;
}

export interface OperationDecl {
  readonly verb: string;
  readonly path: string;
  readonly static?: boolean;
  readonly description?: string;
  readonly parameters?: Readonly<Record<string, ValueDecl>>;
}

/** A member with the type that declared it. */
export interface Declared<T> {
  readonly name: string;
  readonly decl: T;
  /** Id of the type whose document declares it. */
  readonly from: string;
}

/** A type with every member it has, inherited ones included. */
export interface ResolvedDecl {
  readonly id: string;
  readonly name: string;
  /** Every ancestor, nearest first, each once. */
  readonly ancestors: readonly string[];
  readonly properties: ReadonlyMap<string, Declared<ValueDecl>>;
  readonly relations: ReadonlyMap<string, Declared<RelationDecl>>;
  readonly operations: ReadonlyMap<string, Declared<OperationDecl>>;
  /** Structures by name (own first, then inherited), and by `<owner id>#<name>` for references into other types. */
  readonly structures: ReadonlyMap<string, Declared<StructureDecl>>;
  /** The documents it was built from, by id (to look up `<type id>#<Structure>`). */
  readonly documents: ReadonlyMap<string, TypeInfo>;
}

/** Core types whose operations the controller handles itself (provision, configure, enable, upgrade...): not custom operations. */
const BASE_OPERATION_TYPES: readonly string[] = [
  "http://aps-standard.org/types/core/resource/1.0",
  "http://aps-standard.org/types/core/suspendable/1.0",
  "http://aps-standard.org/types/core/application/1.0",
];

/**
 * Fetches a type's document and every document its members need: its ancestors and the types
 * named by `<type id>#<Structure>` references. A document that cannot be fetched (a type of a
 * package not imported here) is left out: its members are then simply not known.
 */
export async function loadDocuments(
  typeId: string,
  fetchType: (id: string) => Promise<TypeInfo | undefined>,
): Promise<Map<string, TypeInfo>> {
  const docs = new Map<string, TypeInfo>();
  const tried = new Set<string>();
  let wave = [typeId];
  while (wave.length) {
    const found = await Promise.all(wave.map((id) => fetchType(id).catch(() => undefined)));
    const next: string[] = [];
    for (const doc of found) {
      if (!doc) continue;
      docs.set(doc.id, doc);
      for (const id of referencedTypes(doc)) if (!tried.has(id)) next.push(id);
    }
    for (const id of wave) tried.add(id);
    wave = [...new Set(next)].filter((id) => !tried.has(id));
  }
  return docs;
}

/** The parents a document names and the types of its `<type id>#<Structure>` references. */
function referencedTypes(doc: TypeInfo): string[] {
  const out = [...(doc.implements ?? [])];
  const visit = (v: ValueDecl | null | undefined): void => {
    if (!v) return;
    const hash = v.type?.indexOf("#") ?? -1;
    if (hash > 0) out.push(v.type!.slice(0, hash));
    visit(v.items);
  };
  for (const p of Object.values((doc.properties ?? {}) as Record<string, ValueDecl>)) visit(p);
  for (const s of Object.values((doc.structures ?? {}) as Record<string, StructureDecl>))
    for (const p of Object.values(s.properties ?? {})) visit(p);
  for (const op of Object.values((doc.operations ?? {}) as Record<string, OperationDecl>))
    for (const p of Object.values(op.parameters ?? {})) visit(p);
  return out;
}

/** Merges `typeId`'s document with its ancestors' (all in `docs`). Throws when `typeId`'s own document is missing. */
export function resolveDeclaration(typeId: string, docs: ReadonlyMap<string, TypeInfo>): ResolvedDecl {
  const cache = new Map<string, ResolvedDecl>();
  const resolve = (id: string, visiting: ReadonlySet<string>): ResolvedDecl | undefined => {
    const known = cache.get(id);
    if (known) return known;
    const doc = docs.get(id);
    if (!doc) return undefined;
    const ancestors: string[] = [];
    const parents: ResolvedDecl[] = [];
    for (const parentId of doc.implements ?? []) {
      // A cycle is the compiler's error; here it only must not loop.
      if (parentId === id || visiting.has(parentId)) continue;
      if (!ancestors.includes(parentId)) ancestors.push(parentId);
      const parent = resolve(parentId, new Set([...visiting, id]));
      if (!parent) continue;
      parents.push(parent);
      for (const a of parent.ancestors) if (!ancestors.includes(a)) ancestors.push(a);
    }
    const merge = <T>(
      pick: (t: ResolvedDecl) => ReadonlyMap<string, Declared<T>>,
      own: Record<string, unknown> | undefined,
    ): Map<string, Declared<T>> => {
      const merged = new Map<string, Declared<T>>();
      for (const parent of parents)
        for (const [name, member] of pick(parent)) if (!merged.has(name)) merged.set(name, member);
      for (const [name, decl] of Object.entries(own ?? {}))
        if (decl && typeof decl === "object") merged.set(name, { name, decl: decl as T, from: id });
      return merged;
    };
    const structures = new Map<string, Declared<StructureDecl>>();
    for (const [name, decl] of Object.entries(doc.structures ?? {}))
      structures.set(name, { name, decl: decl as StructureDecl, from: id });
    for (const parent of parents)
      for (const [name, s] of parent.structures)
        if (!name.includes("#") && !structures.has(name)) structures.set(name, s);
    const resolved: ResolvedDecl = {
      id,
      name: doc.name,
      ancestors,
      properties: merge<ValueDecl>((t) => t.properties, doc.properties),
      relations: merge<RelationDecl>((t) => t.relations, doc.relations),
      operations: merge<OperationDecl>((t) => t.operations, doc.operations),
      structures,
      documents: docs,
    };
    cache.set(id, resolved);
    return resolved;
  };
  const type = resolve(typeId, new Set());
  if (!type) throw new Error(`The declaration of ${typeId} is not available.`);
  return type;
}

/**
 * The structure a `type` text names in the context of `type`: `<Name>` among its structures
 * (own or inherited), `<type id>#<Name>` among that type's (resolved from the loaded documents).
 */
export function findStructure(type: ResolvedDecl, text: string): Declared<StructureDecl> | undefined {
  const hash = text.indexOf("#");
  if (hash < 0) return type.structures.get(text);
  const ownerId = text.slice(0, hash);
  if (!type.documents.has(ownerId)) return undefined;
  return resolveDeclaration(ownerId, type.documents).structures.get(text.slice(hash + 1));
}

/** The operations a user calls by name: those the base core types do not declare. */
export function customOperations(type: ResolvedDecl): Declared<OperationDecl>[] {
  const base = new Set<string>();
  for (const id of BASE_OPERATION_TYPES) {
    if (id !== type.id && !type.ancestors.includes(id)) continue;
    for (const name of Object.keys(type.documents.get(id)?.operations ?? {})) base.add(name);
  }
  return [...type.operations.values()].filter((op) => !base.has(op.name) && !BASE_OPERATION_TYPES.includes(op.from));
}
