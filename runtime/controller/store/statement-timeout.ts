/**
 * Recognising a statement PostgreSQL cancelled because it ran past `statement_timeout`
 * (SQLSTATE 57014, query_canceled). The controller answers it with 503: the request may be fine
 * and the database busy, or the query too costly for the time allowed; either way it is not the
 * controller failing, and retrying later or narrowing the query can succeed.
 */

const QUERY_CANCELED = "57014";

/** True when `error` (or what it wraps: drizzle puts the driver's error in `cause`) is a cancelled statement. */
export function isStatementTimeout(error: unknown): boolean {
  for (let e = error, hops = 0; e && typeof e === "object" && hops < 5; e = (e as { cause?: unknown }).cause, hops++) {
    if ((e as { code?: unknown }).code === QUERY_CANCELED) return true;
  }
  return false;
}
