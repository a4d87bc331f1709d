/**
 * What handlers return: a body (200, or 201 for provision), nothing (204), a 202 that asks the
 * controller to call again later (docs/aps/lifecycle.md, "Asynchronous operations"), a non-JSON
 * body, or an error the controller passes on.
 */
import type { OperationInput } from "../common/type-validator.ts";
import type { ApsCallContext } from "./context.ts";

/** "Not done yet; call again in `retrySeconds` seconds" (docs/aps/lifecycle.md, "Asynchronous operations"). */
export class Accepted {
  constructor(
    readonly info: string,
    readonly retrySeconds: number,
    readonly body?: Record<string, unknown>,
  ) {}
}

/** A 202 reply: the controller repeats the call with `APS-Request-Phase: async`. */
export function accepted(info: string, retrySeconds: number, body?: Record<string, unknown>): Accepted {
  return new Accepted(info, retrySeconds, body);
}

/** A reply with a declared non-JSON content type (`contentType`, docs/aps/rest-api.md, "Custom operations"). */
export class RawReply {
  constructor(
    readonly contentType: string,
    readonly body: Uint8Array | string,
  ) {}
}

/** An error reply the controller passes back to its caller with this status. */
export class ConnectorError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "ConnectorError";
  }
}

/** A value, or a promise of it: what handlers may return. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * What an event handler answers (docs/aps/events.md, "Delivery"): nothing (204, delivered), or
 * `accepted(...)` (202: the controller delivers the notification again later).
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing is typed `void`, not `undefined`.
export type EventReply = void | Accepted;

/** What a handler answers for a write: properties to store, nothing, or a 202 (call again later). */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing is typed `void`, not `undefined`.
export type WriteReply<T> = T | void | Accepted;

/**
 * A provision or configure body as the type the handler declares. The controller checked it with
 * the type's generated validators before calling, so the generated wiring may say what it is;
 * this is the one place that says so.
 */
export function checkedBody<T>(body: Record<string, unknown>): T {
  return body as T;
}

/** Parameters a generated parser converted, or a 400 naming every problem. */
export function operationParams<T>(
  result: { ok: true; params: T } | { ok: false; errors: readonly { path: string; message: string }[] },
): T {
  if (!result.ok)
    throw new ConnectorError(
      400,
      `invalid parameters: ${result.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`,
    );
  return result.params;
}

/**
 * The parameters of a custom operation call: the operation's generated parser over the call's
 * path, query and body, or a 400 naming every problem (what the generated wiring calls).
 */
export function parsedParams<T>(
  parse: (
    input: OperationInput,
  ) => { ok: true; params: T } | { ok: false; errors: readonly { path: string; message: string }[] },
  ctx: ApsCallContext,
  body: unknown,
): T {
  return operationParams(parse({ path: ctx.params, query: ctx.query, body }));
}
