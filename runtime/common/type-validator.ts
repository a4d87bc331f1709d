/**
 * What the generated validators of one type offer, so the controller and `aps-gen validate`
 * can look them up by type id without knowing the generated names.
 */
import type { Actor } from "./actor.ts";
import type { ValidationError } from "./validation-error.ts";

/** The raw input of a custom operation call: path and query values as text, the body parsed. */
export interface OperationInput {
  readonly path: Readonly<Record<string, string | undefined>>;
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly body?: unknown;
}

/**
 * Parameters converted to their declared types, or every reason they could not be. A generated
 * parser names `P`, the operation's parameter type from the types module.
 */
export type OperationParams<P extends Record<string, unknown> = Record<string, unknown>> =
  | { readonly ok: true; readonly params: P }
  | { readonly ok: false; readonly errors: ValidationError[] };

/** The validators of one type. Each returns every error at once; an empty array means valid. */
export interface TypeValidator {
  readonly typeId: string;
  /**
   * A provision body (docs/aps/lifecycle.md, "Base operations"). `required` properties must be
   * present, also when they declare a `default` (a hint for clients, docs/aps/resources.md,
   * "Property attributes"); a user may not set `readonly` properties or ones its roles may not
   * access. With the application as actor this checks what an application writes.
   */
  validateCreate(body: unknown, actor: Actor): ValidationError[];
  /** A configure body: like create, but nothing is required and users may not set `final` properties. */
  validateUpdate(body: unknown, actor: Actor): ValidationError[];
  /** `default` of each property that declares one: hints for clients preparing a new resource (docs/aps/resources.md, "Property attributes"); the controller fills none in. */
  readonly defaults: Readonly<Record<string, unknown>>;
  /** Parameter parsers of the custom operations, by operation name. */
  readonly operations: Readonly<Record<string, (input: OperationInput) => OperationParams>>;
}
