/**
 * What handlers return: a body (200, or 201 for provision), nothing (204), a 202 that asks the
 * controller to call again later (SPEC 3), a non-JSON body, or an error the controller passes on.
 */

/** "Not done yet; call again in `retrySeconds` seconds" (SPEC 3, aps-facts 4). */
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

/** A reply with a declared non-JSON content type (SPEC 4.4 `contentType`). */
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
