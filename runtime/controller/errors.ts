/**
 * The one error shape of the controller (DESIGN 3):
 * `{"code": <status>, "type": "<Class>", "error": "<Class>", "message": "...", "details": [...]}`.
 * Handlers throw {@link ApsError}; the app turns it (and anything unexpected) into that body.
 */
import type { ValidationError } from "../common/validation-error.ts";

/** HTTP statuses the controller answers with, by the class name it puts in `type`/`error`. */
export const ErrorClass = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  409: "Conflict",
  413: "PayloadTooLarge",
  415: "UnsupportedMediaType",
  429: "TooManyRequests",
  500: "InternalError",
  502: "BadGateway",
  503: "ServiceUnavailable",
  504: "GatewayTimeout",
} as const;

/** A status the controller may answer with. */
export type ErrorStatus = keyof typeof ErrorClass;

/** The JSON body of every error. */
export interface ErrorBody {
  readonly code: number;
  readonly type: string;
  readonly error: string;
  readonly message: string;
  readonly details?: readonly ValidationError[];
}

/** An error a request handler raises on purpose. */
export class ApsError extends Error {
  constructor(
    readonly status: ErrorStatus,
    message: string,
    readonly details?: readonly ValidationError[],
    /** Response headers the answer needs (e.g. `Retry-After` of a 429). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = "ApsError";
  }

  toBody(): ErrorBody {
    const cls = ErrorClass[this.status];
    return { code: this.status, type: cls, error: cls, message: this.message, ...(this.details?.length ? { details: this.details } : {}) };
  }
}

/** 400 for values that fail validation, listing each problem. */
export function invalidBody(errors: readonly ValidationError[], what = "The request body"): ApsError {
  const first = errors[0];
  const summary = first ? `${first.path || "(body)"}: ${first.message}` : "";
  return new ApsError(400, `${what} is not valid: ${errors.length} problem${errors.length === 1 ? "" : "s"}${summary ? `, first ${summary}` : ""}.`, errors);
}
