/**
 * The one error body of the APS controller (docs/aps/rest-api.md, "Errors"), as the controller
 * and a connector write it ({@link errorBody}) and clients read it: `{"code": <status>, "type":
 * "<Class>", "error": "<Class>", "message": "...", "details": [...]}`.
 */
import type { ValidationError } from "./validation-error.ts";

/** HTTP statuses the controller answers with, by the class name it puts in `type`/`error`. */
export const ErrorClass = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  408: "RequestTimeout",
  409: "Conflict",
  413: "PayloadTooLarge",
  415: "UnsupportedMediaType",
  429: "TooManyRequests",
  500: "InternalError",
  501: "NotImplemented",
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

/**
 * The error body of a reply with `status`: the one writer of the controller and the connector. A
 * status without a class of its own (a connector handler may throw any) is a ClientError or a
 * ServerError.
 */
export function errorBody(status: number, message: string, details?: readonly ValidationError[]): ErrorBody {
  const cls = ErrorClass[status as ErrorStatus] ?? (status >= 500 ? "ServerError" : "ClientError");
  return { code: status, type: cls, error: cls, message, ...(details?.length ? { details } : {}) };
}
