/**
 * The request id that ties together the log lines of one request (issue 18): taken from an
 * incoming `X-Request-ID` when a proxy or the caller set a sensible one, so one id follows a
 * call through the proxy, the controller and the application endpoint; otherwise a new UUID.
 * Both the controller and the connector runtime use it, and echo it in their replies.
 */
import { randomUUID } from "node:crypto";

/** The header that carries it, in and out. */
export const REQUEST_ID_HEADER = "X-Request-ID";

/**
 * What an incoming id may look like: the forms proxies and tracers send (UUIDs, hex, base64url,
 * `host-123`, `Root=1-5f...`), bounded, so a caller cannot put arbitrary text or size into every
 * log line of its request.
 */
const WELL_FORMED = /^[A-Za-z0-9][A-Za-z0-9._:=+/-]{0,127}$/;

/** The id of a request: the incoming one when well formed, else a new one. */
export function requestIdOf(incoming: string | undefined): string {
  const given = incoming?.trim();
  return given && WELL_FORMED.test(given) ? given : randomUUID();
}

/**
 * A header value as the log may carry it (`APS-Transaction-ID`, `APS-Instance-ID`): this
 * controller's ids are UUIDs, another platform's may be longer or of another form; a value longer
 * than 1024 or with characters no identifier has (spaces, controls, non-ASCII) is left out of the log.
 */
export function loggableHeaderValue(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v && /^[\x21-\x7e]{1,1024}$/.test(v) ? v : undefined;
}
