import { isDeepStrictEqual } from "node:util";
import { Codes } from "../diagnostics/codes.ts";
import type { DiagnosticSink } from "../diagnostics/diagnostic.ts";
import { didYouMean } from "../diagnostics/did-you-mean.ts";
import { exactNodeValue } from "../load/json-document.ts";
import type { LoadResult } from "../load/load-inputs.ts";
import type { Loc } from "../load/source-file.ts";
import {
  CoreTypeIds,
  type ApsModel,
  type ModelPackage,
  type Operation,
  type Property,
  type Relation,
  type ResolvedType,
  type Structure,
  type TypeDeclaration,
  type TypeRef,
} from "./model.ts";
import { readDeclaration } from "./read-declaration.ts";

/**
 * Builds the resolved model: reads every declaration, resolves `implements` transitively
 * (several parents, nearest first), merges inherited members (an own member replaces the
 * inherited one whole, docs/aps/types.md section 3), and resolves every type reference in the context of the
 * type that wrote it. References to types outside the inputs become opaque, with a warning.
 */
export function buildModel(loaded: LoadResult, sink: DiagnosticSink): ApsModel {
  const decls = new Map<string, TypeDeclaration>();
  const packages: ModelPackage[] = [];
  /** Ids of the bundled core types, for the hint of a differing declaration of one. */
  const bundled = new Set<string>();
  for (const pkg of loaded.packages) {
    const typeIds: string[] = [];
    /** Declarations identical to one read before: the service still has its type. */
    let copies = 0;
    for (const { doc, service } of pkg.documents) {
      const read = readDeclaration(doc, { packageName: pkg.name, ...(service !== undefined && { service }) }, sink);
      if (!read) continue;
      // The declaration as written, for GET /aps/2/types/{id} (docs/aps/rest-api.md; runtime/controller/type-document.ts).
      const decl: TypeDeclaration = {
        ...read,
        document: exactNodeValue(doc.file, doc.root!) as Record<string, unknown>,
      };
      const earlier = decls.get(decl.id);
      if (earlier) {
        // A copy of a declaration (the core types copied into a project's folder, one package
        // vendored into another) is the same type, read once: where it was read first.
        if (isDeepStrictEqual(earlier.document, decl.document)) {
          copies++;
          continue;
        }
        const core = bundled.has(decl.id)
          ? "; to serve your own edition of a core type, leave the bundled ones out with --no-core"
          : "";
        sink.report(
          Codes.duplicateTypeId,
          decl.loc,
          `type id "${decl.id}" is already declared in ${earlier.file}:${earlier.loc.line}, differently; every type needs its own id (bump the version segment for a new version)${core}.`,
        );
        continue;
      }
      if (pkg.bundled) bundled.add(decl.id);
      decls.set(decl.id, decl);
      typeIds.push(decl.id);
    }
    // Every service must give a type, whether from a schema file or from PHP annotations.
    const expected = pkg.meta?.services.length ?? 0;
    packages.push({
      name: pkg.name,
      root: pkg.root,
      bundled: pkg.bundled,
      ...(pkg.meta && { descriptor: pkg.meta.file }),
      ...(pkg.meta?.id !== undefined && { appId: pkg.meta.id }),
      ...(pkg.meta?.name !== undefined && { metaName: pkg.meta.name }),
      ...(pkg.meta?.version !== undefined && { version: pkg.meta.version }),
      ...(pkg.meta?.release !== undefined && { release: pkg.meta.release }),
      // Copies count as loaded, but the package is complete only with every type its own (APS008 looks there for the root).
      complete: pkg.meta !== undefined && expected > 0 && typeIds.length === expected,
      ...(pkg.meta && { services: { declared: expected, loaded: typeIds.length + copies } }),
      typeIds,
    });
  }
  const resolver = new TypeResolver(decls, sink);
  const types = new Map<string, ResolvedType>();
  for (const id of decls.keys()) types.set(id, resolver.resolve(id));
  for (const decl of decls.values()) resolver.resolveReferences(decl, types);
  return { types, packages };
}

class TypeResolver {
  private readonly done = new Map<string, ResolvedType>();
  private readonly visiting = new Set<string>();
  /** `file|typeId` pairs already warned about: one warning per missing type per file is enough. */
  private readonly warnedExternal = new Set<string>();

  constructor(
    private readonly decls: ReadonlyMap<string, TypeDeclaration>,
    private readonly sink: DiagnosticSink,
  ) {}

  resolve(id: string): ResolvedType {
    const cached = this.done.get(id);
    if (cached) return cached;
    const decl = this.decls.get(id)!;
    this.visiting.add(id);

    const ancestors: string[] = [];
    const parents: ResolvedType[] = [];
    for (const parent of decl.implements) {
      if (parent.id === id || this.visiting.has(parent.id)) {
        this.sink.report(
          Codes.implementsCycle,
          parent.loc,
          `"${decl.name}" implements "${parent.id}", which leads back to "${id}"; remove one link of the cycle.`,
        );
        continue;
      }
      const parentDecl = this.decls.get(parent.id);
      pushUnique(ancestors, parent.id);
      if (!parentDecl) {
        if (this.firstExternal(parent.loc, parent.id)) {
          const meant = this.didYouMeanType(parent.id);
          this.sink.report(
            Codes.externalReference,
            parent.loc,
            `"${decl.name}" implements "${parent.id}", which is not among the inputs; nothing is inherited from it${meant.text}. Add its package with --types to check against it.`,
            meant.suggestion,
          );
        }
        continue;
      }
      const resolvedParent = this.resolve(parent.id);
      parents.push(resolvedParent);
      for (const a of resolvedParent.ancestors) pushUnique(ancestors, a);
    }

    const merge = <T extends { readonly name: string }>(
      pick: (t: ResolvedType) => ReadonlyMap<string, T>,
      own: ReadonlyMap<string, T>,
      what: string,
    ): Map<string, T> => {
      const merged = new Map<string, T>();
      parents.forEach((parent) => {
        for (const [name, member] of pick(parent)) {
          const existing = merged.get(name);
          if (existing === undefined) merged.set(name, member);
          else if (existing !== member && !own.has(name)) {
            const loc = decl.implements.find((p) => p.id === parent.id)?.loc ?? decl.loc;
            this.sink.report(
              Codes.conflictingInheritance,
              loc,
              `${what} "${name}" is inherited from more than one parent with different definitions; the one from the first parent wins. Redefine it in "${decl.name}" to choose.`,
            );
          }
        }
      });
      for (const [name, member] of own) merged.set(name, member);
      return merged;
    };

    const isA = (base: string) => id === base || ancestors.includes(base);
    const resolved: ResolvedType = {
      decl,
      id,
      name: decl.name,
      ancestors,
      properties: merge<Property>((t) => t.properties, decl.properties, "property"),
      relations: merge<Relation>((t) => t.relations, decl.relations, "relation"),
      operations: merge<Operation>((t) => t.operations, decl.operations, "operation"),
      structures: mergeStructures(decl.structures, parents),
      isResource: isA(CoreTypeIds.resource),
      isApplication: isA(CoreTypeIds.application),
      isSuspendable: isA(CoreTypeIds.suspendable),
    };
    this.visiting.delete(id);
    this.done.set(id, resolved);
    return resolved;
  }

  /** Resolves the references a declaration itself wrote (inherited ones were done by their owner). */
  resolveReferences(decl: TypeDeclaration, types: ReadonlyMap<string, ResolvedType>): void {
    const context = types.get(decl.id)!;
    const fix = (ref: TypeRef): TypeRef => this.resolveRef(ref, context, types);
    for (const p of decl.properties.values()) p.type = fix(p.type);
    for (const s of decl.structures.values()) for (const p of s.properties.values()) p.type = fix(p.type);
    for (const op of decl.operations.values()) {
      for (const param of op.parameters) if (param.type) param.type = fix(param.type);
      if (op.response?.type) op.response.type = fix(op.response.type);
      if (op.errorResponse?.type) op.errorResponse.type = fix(op.errorResponse.type);
    }
    for (const r of decl.relations.values()) this.checkRelationTarget(r, decl);
  }

  private resolveRef(ref: TypeRef, context: ResolvedType, types: ReadonlyMap<string, ResolvedType>): TypeRef {
    if (ref.kind === "array") return { kind: "array", items: this.resolveRef(ref.items, context, types) };
    if (ref.kind !== "unresolved") return ref;
    const { text, loc } = ref;
    const hash = text.indexOf("#");
    if (hash >= 0) {
      const typeId = text.slice(0, hash);
      const name = text.slice(hash + 1);
      const owner = types.get(typeId);
      if (!owner) return this.external(text, typeId, loc);
      const structure = owner.structures.get(name);
      if (!structure) {
        const known = [...owner.structures.keys()];
        this.sink.report(
          Codes.structureUnknown,
          loc,
          `"${owner.name}" (${typeId}) declares no structure "${name}"${known.length ? `; it has ${known.join(", ")}` : ""}.`,
        );
        return { kind: "opaque", ref: text };
      }
      return { kind: "structure", typeId: structure.ownerTypeId, name };
    }
    if (text.includes("://")) {
      return types.has(text) ? { kind: "resource", typeId: text } : this.external(text, text, loc);
    }
    const structure = context.structures.get(text);
    if (structure) return { kind: "structure", typeId: structure.ownerTypeId, name: text };
    const meant = didYouMean(text, [...PRIMITIVE_NAMES, ...context.structures.keys()]);
    this.sink.report(
      Codes.typeUnknown,
      loc,
      `unknown type "${text}"${meant.text}; use string, number, integer, boolean, array, object, a structure of "${context.name}" (${[...context.structures.keys()].join(", ") || "none declared"}), "<type-id>#<Structure>", or a type id.`,
      meant.suggestion,
    );
    return { kind: "opaque", ref: text };
  }

  private external(text: string, typeId: string, loc: Loc): TypeRef {
    if (this.firstExternal(loc, typeId)) {
      const meant = this.didYouMeanType(typeId);
      this.sink.report(
        Codes.externalReference,
        loc,
        `"${typeId}" is not among the inputs, so "${text}" is treated as opaque (any JSON)${meant.text}. Add its package with --types to check it.`,
        meant.suggestion,
      );
    }
    return { kind: "opaque", ref: text };
  }

  /** `; did you mean "<id>"?` when a type id among the inputs is a near miss of `typeId`. */
  private didYouMeanType(typeId: string): ReturnType<typeof didYouMean> {
    return didYouMean(typeId, this.decls.keys());
  }

  private firstExternal(loc: Loc, typeId: string): boolean {
    const key = `${loc.file}|${typeId}`;
    if (this.warnedExternal.has(key)) return false;
    this.warnedExternal.add(key);
    return true;
  }

  private checkRelationTarget(r: Relation, decl: TypeDeclaration): void {
    const loc = r.attrLocs.type ?? r.loc;
    if (r.typeId.includes("#") || !r.typeId.includes("://")) {
      this.sink.report(
        Codes.relationTargetInvalid,
        loc,
        `relation "${r.name}" points at "${r.typeId}"; a relation links resources, so give a type id such as "http://aps-standard.org/types/core/account/1.0".`,
      );
    } else if (!this.decls.has(r.typeId) && this.firstExternal(loc, r.typeId)) {
      const meant = this.didYouMeanType(r.typeId);
      this.sink.report(
        Codes.externalReference,
        loc,
        `relation "${r.name}" of "${decl.name}" links to "${r.typeId}", which is not among the inputs; it is treated as opaque${meant.text}.`,
        meant.suggestion,
      );
    }
  }
}

/** The type names a property or parameter may use besides structures and type ids. */
const PRIMITIVE_NAMES = ["string", "number", "integer", "boolean", "array", "object"];

function mergeStructures(
  own: ReadonlyMap<string, Structure>,
  parents: readonly ResolvedType[],
): Map<string, Structure> {
  const merged = new Map(own);
  for (const parent of parents) for (const [name, s] of parent.structures) if (!merged.has(name)) merged.set(name, s);
  return merged;
}

function pushUnique(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}
