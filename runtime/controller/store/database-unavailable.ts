/**
 * Recognising a database that cannot be reached right now (PostgreSQL stopped, restarting,
 * crashed and recovering, or the network to it down), as opposed to a statement that failed.
 * The controller answers such a failure with 503 and `Retry-After`: the request may be fine and
 * succeed once the server is back, which the driver finds by itself (it opens connections again
 * on the next query; open-database.ts bounds how long each attempt may take).
 *
 * What the errors look like, by where they come from:
 * - Node's socket: `ECONNREFUSED` (nothing listens: stopped, or killed), `ECONNRESET` and `EPIPE`
 *   (the connection was cut), `ETIMEDOUT`, `EHOSTUNREACH`, `ENETUNREACH`, `EAI_AGAIN` and
 *   `ENOTFOUND` (the network or the name service is down).
 * - postgres.js's own codes (node_modules/postgres/src/connection.js, errors.js):
 *   `CONNECT_TIMEOUT` (no connection within `connect_timeout`), `CONNECTION_CLOSED` (the server
 *   closed a connection with a query in flight: a fast shutdown or a crash ends every session),
 *   `CONNECTION_ENDED` and `CONNECTION_DESTROYED` (the pool was ended: the controller is closing).
 * - PostgreSQL's SQLSTATEs (https://www.postgresql.org/docs/15/errcodes-appendix.html): class 08,
 *   connection exception; 57P01 admin_shutdown (a fast shutdown ends the session), 57P02
 *   crash_shutdown (another server process crashed: every session is ended and the server
 *   recovers), 57P03 cannot_connect_now (the server is starting, shutting down or in recovery);
 *   and 53300 too_many_connections, the server being full rather than gone, which a retry
 *   also cures.
 *
 * The embedded database (PGlite) runs inside the process and raises none of these.
 */
import { ControllerError } from "../support/errors.ts";

const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "ENOTFOUND",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "57P01",
  "57P02",
  "57P03",
  "53300",
]);
/** SQLSTATE class 08: connection exception. */
const CONNECTION_EXCEPTION = /^08[0-9A-Z]{3}$/;

/**
 * The `Retry-After` of the 503 (seconds). A restart or a crash recovery of PostgreSQL takes
 * seconds (a fast stop and start here: under 1 s; a busy server's shutdown checkpoint or a
 * crash recovery replaying more WAL: longer), so a client that tries again after 5 s finds it
 * back in the common case and waits at most 5 s longer than needed; one that tries sooner costs
 * the controller little (a refused connection fails at once) but mostly gets another 503.
 */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** True when `error`, or what it wraps (drizzle puts the driver's error in `cause`), says the database cannot be reached. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return unavailabilityCode(error) !== undefined;
}

/** The code that made `error` an unavailability (for a log line), or undefined. */
export function unavailabilityCode(error: unknown): string | undefined {
  for (let e = error, hops = 0; e && typeof e === "object" && hops < 5; e = (e as { cause?: unknown }).cause, hops++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (UNAVAILABLE_CODES.has(code) || CONNECTION_EXCEPTION.test(code))) return code;
  }
  return undefined;
}

/** The answer to a request that needed the database while it could not be reached. */
export function databaseUnavailableError(): ControllerError {
  return new ControllerError(
    503,
    `The database cannot be reached right now; try again in ${DATABASE_RETRY_AFTER_SECONDS} s. A write cut short this way may or may not have been stored: read before repeating it.`,
    undefined,
    { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) },
  );
}
