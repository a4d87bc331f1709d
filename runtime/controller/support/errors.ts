/**
 * Errors the controller answers with, in the one error body (runtime/common/error-body.ts).
 * Handlers throw {@link ControllerError}; the app turns it (and anything unexpected) into that body.
 */
import { errorBody, type ErrorBody, type ErrorStatus } from "../../common/error-body.ts";
import type { ValidationError } from "../../common/validation-error.ts";

export type { ErrorBody, ErrorStatus };

/** An error a request handler raises on purpose. */
export class ControllerError extends Error {
  constructor(
    readonly status: ErrorStatus,
    message: string,
    readonly details?: readonly ValidationError[],
    /** Response headers the answer needs (e.g. `Retry-After` of a 429). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = "ControllerError";
  }

  toBody(): ErrorBody {
    return errorBody(this.status, this.message, this.details);
  }
}

/** 400 for values that fail validation, listing each problem. */
export function invalidBody(errors: readonly ValidationError[], what = "The request body"): ControllerError {
  const first = errors[0];
  const summary = first ? `${first.path || "(body)"}: ${first.message}` : "";
  return new ControllerError(
    400,
    `${what} is not valid: ${errors.length} problem${errors.length === 1 ? "" : "s"}${summary ? `, first ${summary}` : ""}.`,
    errors,
  );
}
