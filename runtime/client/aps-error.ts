import type { ErrorBody } from "../common/error-body.ts";

/** A failed controller call, with the HTTP status and the controller's error body (docs/aps/rest-api.md, "Errors"). */
export class ApsError extends Error {
  constructor(
    /** The HTTP status of the reply. */
    readonly status: number,
    /** The error class the controller names (`BadRequest`, `NotFound`, ...), or the status text. */
    readonly type: string,
    message: string,
    /** One entry per problem, for validation errors. */
    readonly details: readonly { readonly path: string; readonly code: string; readonly message: string }[] = [],
  ) {
    super(message);
    this.name = "ApsError";
  }
}

/** Turns a failed reply into an {@link ApsError}; a body that is not the controller's error shape becomes its message. */
export async function apsErrorOf(reply: Response): Promise<ApsError> {
  const text = await reply.text();
  try {
    // The controller's error body (runtime/common/error-body.ts); another server's may be anything.
    const body = JSON.parse(text) as { [K in keyof ErrorBody]?: unknown };
    const type =
      typeof body.type === "string" ? body.type : typeof body.error === "string" ? body.error : reply.statusText;
    const message = typeof body.message === "string" ? body.message : text;
    return new ApsError(reply.status, type, message, Array.isArray(body.details) ? body.details : []);
  } catch {
    return new ApsError(reply.status, reply.statusText || "Error", text || `HTTP ${reply.status}`);
  }
}
