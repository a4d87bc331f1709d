/**
 * The type registry's contract: what the generator compiles from the declarations (in memory,
 * when serve starts or a package is imported) and the controller reads. Types only; the
 * controller's lookups live in runtime/controller/registry.ts.
 */
import { accessBits, type Role } from "./actor.ts";

/** Who may run an operation whose declaration names no access (docs/aps/security.md, "Access checks"): admin and owner. */
const OPERATION_DEFAULT: Readonly<Record<Role, boolean>> = { admin: true, owner: true, referrer: false, public: false };
/** Retrieving a resource (`GET /`, the `retrieve` operation) also allows referrers by default. */
const RETRIEVE_DEFAULT: Readonly<Record<Role, boolean>> = { ...OPERATION_DEFAULT, referrer: true };

/** The access an operation has by default, per role; `retrieve` for the resource's own GET. */
export function defaultOperationAccess(retrieve: boolean): Readonly<Record<Role, boolean>> {
  return retrieve ? RETRIEVE_DEFAULT : OPERATION_DEFAULT;
}

/** The same as role bits (runtime/common/actor.ts). */
export function defaultOperationBits(retrieve: boolean): number {
  return accessBits(undefined, defaultOperationAccess(retrieve));
}

/** How the controller treats a property's value (RQL casts, read filtering). */
export type PropertyKind =
  | "string"
  | "integer"
  | "number"
  | "boolean"
  | "object"
  | "array"
  | "structure"
  | "link"
  | "unknown";

/** A property as the controller sees it. Role bits are those of runtime/common/actor.ts. */
export interface RegistryProperty {
  readonly kind: PropertyKind;
  readonly required: boolean;
  readonly readonly: boolean;
  readonly final: boolean;
  readonly encrypted: boolean;
  /** Roles that may read and write the property (docs/aps/resources.md, "The access object"; defaults admin and owner). */
  readonly access: number;
  /**
   * The declaration's `access` does not name `referrer`: an application that reaches the resource
   * without serving it reads the property all the same (the APS property rules: another application with
   * legitimate access reads a value unless `referrer` is set to false). Absent when it names it.
   */
  readonly referrerUnsaid?: true;
}

/** A relation: a link from a resource of this type to one (or, for a collection, many) of `typeId`. */
export interface RegistryRelation {
  readonly typeId: string;
  readonly collection: boolean;
  /** A strong link (docs/aps/relations.md): it must exist, and its target cannot go while it does. */
  readonly required: boolean;
}

/** An operation: base (handled by the controller) or custom (forwarded to the application). */
export interface RegistryOperation {
  readonly verb: "GET" | "POST" | "PUT" | "DELETE";
  readonly path: string;
  readonly static: boolean;
  readonly base: boolean;
  /** Roles that may call it. */
  readonly access: number;
}

/** One type. */
export interface RegistryType {
  readonly id: string;
  readonly name: string;
  /** Package slug the type was declared in (`core`, `examples/cloudmail`). */
  readonly packageName: string;
  /** Every type it implements, transitively. */
  readonly ancestors: readonly string[];
  readonly isResource: boolean;
  readonly isApplication: boolean;
  readonly isSuspendable: boolean;
  /**
   * Types of a package with APP-META.xml belong to its application; types of plain declaration
   * folders (the core types among them) live in the controller alone.
   */
  readonly servedBy: "platform" | "application";
  /** The APP-META.xml service that serves the type, for application types. */
  readonly service?: string;
  readonly properties: Readonly<Record<string, RegistryProperty>>;
  readonly relations: Readonly<Record<string, RegistryRelation>>;
  readonly operations: Readonly<Record<string, RegistryOperation>>;
  /** The declaration's APS JSON as written, served by `GET /aps/2/types/{id}` (type-document.ts). */
  readonly declaration?: Readonly<Record<string, unknown>>;
}
