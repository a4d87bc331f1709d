import type { Loc } from "../load/source-file.ts";

/** Well-known type ids of the APS core that the model gives meaning to. */
export { CoreTypeIds } from "../../runtime/common/core-types.ts";

/** Primitive names usable as a property type. */
type PropertyPrimitive = "string" | "number" | "integer" | "boolean" | "object";

/** Primitive names usable for path and query parameters (`long` is a 64-bit integer). */
type ParameterPrimitive = "string" | "integer" | "long" | "number" | "boolean";

/**
 * What a `type` attribute means once resolved. Readers create `unresolved` for every
 * non-primitive name; the resolver replaces it in place, in the context of the declaring type.
 */
export type TypeRef =
  | { kind: "primitive"; name: PropertyPrimitive | ParameterPrimitive }
  | { kind: "array"; items: TypeRef }
  | { kind: "structure"; typeId: string; name: string }
  | { kind: "resource"; typeId: string }
  | { kind: "self" }
  | { kind: "opaque"; ref: string }
  | { kind: "unresolved"; text: string; loc: Loc };

/** A literal from a declaration (`default`, an `enum` entry), with its exact source text. */
export interface Literal {
  readonly value: unknown;
  /** The JSON text as written, so that 64-bit integers stay exact. */
  readonly raw: string;
  readonly loc: Loc;
}

/** A permission object (docs/aps/resources.md): only the roles that were written are present. */
export interface Access {
  admin?: boolean;
  owner?: boolean;
  referrer?: boolean;
  public?: boolean;
}

/** A property of a type or structure, with every attribute of docs/aps/resources.md. */
export interface Property {
  readonly name: string;
  readonly loc: Loc;
  /** Type id (or `typeId#Structure`) of the declaration the property was written in. */
  readonly declaredIn: string;
  type: TypeRef;
  /** The `type` attribute as written, for messages and docs. */
  readonly typeText: string;
  readonly description?: string;
  readonly title?: string;
  readonly required: boolean;
  readonly readonly: boolean;
  readonly final: boolean;
  readonly encrypted: boolean;
  readonly headline: boolean;
  readonly uniqueItems: boolean;
  readonly unit?: string;
  readonly format?: string;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly default?: Literal;
  readonly enum?: readonly Literal[];
  readonly enumTitles?: readonly string[];
  readonly access?: Access;
  /** Where each attribute was written, for diagnostics about that attribute. */
  readonly attrLocs: Readonly<Record<string, Loc>>;
}

/** A relation (docs/aps/relations.md): required = strong link, otherwise weak. */
export interface Relation {
  readonly name: string;
  readonly loc: Loc;
  readonly declaredIn: string;
  /** Type id of the other end. */
  readonly typeId: string;
  readonly required: boolean;
  readonly collection: boolean;
  readonly access?: Access;
  readonly description?: string;
  readonly attrLocs: Readonly<Record<string, Loc>>;
}

/** A parameter of a custom operation (docs/aps/rest-api.md). */
export interface Parameter {
  readonly name: string;
  readonly loc: Loc;
  readonly kind: "path" | "query" | "body";
  type?: TypeRef;
  readonly typeText?: string;
  readonly contentType?: string;
  /**
   * A JSON `contentType` written beside `type` (e.g. `text/json`, as `aps build` writes it): it
   * adds nothing to the `type`, so it is not kept as `contentType`; only the checker's APS098 uses it.
   */
  readonly redundantContentType?: string;
  readonly required: boolean;
  readonly description?: string;
  readonly attrLocs: Readonly<Record<string, Loc>>;
}

/** `response` or `errorResponse` of an operation: a JSON type or a non-JSON content type. */
export interface ResponseDecl {
  readonly loc: Loc;
  type?: TypeRef;
  readonly typeText?: string;
  readonly contentType?: string;
  /** As on {@link Parameter}: a JSON `contentType` beside `type`, dropped in favour of the type (APS098). */
  readonly redundantContentType?: string;
  readonly description?: string;
}

/** HTTP verbs an operation may declare. */
export type Verb = "GET" | "POST" | "PUT" | "DELETE";

/** An operation: a base one of core/resource or a custom one (docs/aps/lifecycle.md, docs/aps/rest-api.md). */
export interface Operation {
  /** The operation's name: `name` when given, else its key (real `aps build` output omits it). */
  readonly name: string;
  readonly loc: Loc;
  readonly declaredIn: string;
  readonly verb: Verb;
  /** Normalised path, always starting with `/` (`/` alone for base operations). */
  readonly path: string;
  readonly static: boolean;
  readonly parameters: readonly Parameter[];
  readonly response?: ResponseDecl;
  readonly errorResponse?: ResponseDecl;
  readonly access?: Access;
  readonly description?: string;
  readonly attrLocs: Readonly<Record<string, Loc>>;
}

/** A named structure: an object schema local to a type (docs/aps/types.md section 6). */
export interface Structure {
  readonly name: string;
  readonly loc: Loc;
  readonly ownerTypeId: string;
  readonly description?: string;
  readonly properties: ReadonlyMap<string, Property>;
}

/** One type as declared in one file, before inheritance. */
export interface TypeDeclaration {
  readonly id: string;
  readonly name: string;
  readonly loc: Loc;
  readonly file: string;
  /** Slug of the package the declaration came from (`core`, `examples/cloudmail`, ...). */
  readonly packageName: string;
  /** The APP-META.xml service that serves this type, when the package names one. */
  readonly service?: string;
  readonly implements: readonly { readonly id: string; readonly loc: Loc }[];
  readonly access?: Access;
  readonly description?: string;
  readonly properties: ReadonlyMap<string, Property>;
  readonly relations: ReadonlyMap<string, Relation>;
  readonly operations: ReadonlyMap<string, Operation>;
  readonly structures: ReadonlyMap<string, Structure>;
  /** The declaration's JSON as written (for PHP-declared types, as `aps build` would write it). */
  readonly document?: Readonly<Record<string, unknown>>;
}

/** A type with everything it inherits, ready for the checker and the emitters. */
export interface ResolvedType {
  readonly decl: TypeDeclaration;
  readonly id: string;
  readonly name: string;
  /** Every type it implements, transitively, nearest first, without duplicates. */
  readonly ancestors: readonly string[];
  /** Own and inherited members; an own member replaces the inherited one whole. */
  readonly properties: ReadonlyMap<string, Property>;
  readonly relations: ReadonlyMap<string, Relation>;
  readonly operations: ReadonlyMap<string, Operation>;
  /** Structures visible by bare name: own, then inherited. */
  readonly structures: ReadonlyMap<string, Structure>;
  /** Implements core/resource (or is it): can have instances. */
  readonly isResource: boolean;
  readonly isApplication: boolean;
  readonly isSuspendable: boolean;
}

/** The resolved model of all inputs. */
export interface ApsModel {
  /** By type id, in input order (core first). */
  readonly types: ReadonlyMap<string, ResolvedType>;
  readonly packages: readonly ModelPackage[];
}

/** A package as the model sees it: its name and the types it declares. */
export interface ModelPackage {
  readonly name: string;
  readonly root: string;
  readonly appId?: string;
  /** APP-META.xml `<name>`, the package's name as the platform shows it. */
  readonly metaName?: string;
  readonly version?: string;
  readonly release?: string;
  readonly typeIds: readonly string[];
  /** True for the core types bundled with aps-gen. */
  readonly bundled: boolean;
  /** Display path of APP-META.xml, when the package has one. */
  readonly descriptor?: string;
  /** Every service of APP-META.xml loaded as a type (from its schema file or its PHP code). */
  readonly complete: boolean;
  /** For a package with APP-META.xml: how many `<service>`s it has and how many loaded as types. */
  readonly services?: { readonly declared: number; readonly loaded: number };
}

/** Default access of a property when none is declared (docs/aps/resources.md). */
export const defaultPropertyAccess: Readonly<Required<Access>> = {
  admin: true,
  owner: true,
  referrer: false,
  public: false,
};
