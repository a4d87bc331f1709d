/**
 * One call the controller made to an application endpoint, as the console's live log shows it
 * (`GET /aps/2/console/calls`, docs/console.md): secret headers removed, encrypted property values
 * masked, bodies cut at {@link MAX_LOGGED_BODY_BYTES}.
 */

/** Bodies longer than this (in UTF-8 bytes) are cut, and say so. */
export const MAX_LOGGED_BODY_BYTES = 64 * 1024;

/** What an encrypted property's value is shown as. */
export const MASKED_VALUE = "••••";

export interface EndpointCallEntry {
  /**
   * Increasing within the live log of one controller: its one process, or all the workers of
   * `serve --workers N` (their primary process numbers the entries); the SSE event id.
   */
  readonly id: number;
  /** When the call was sent (ISO 8601). */
  readonly at: string;
  /** The application instance called. */
  readonly instance: string;
  readonly method: string;
  /** The path below the endpoint, without the query (custom operations carry arguments there). */
  readonly path: string;
  /** Headers sent, those that carry credentials left out. */
  readonly requestHeaders: Readonly<Record<string, string>>;
  /** The endpoint's status; absent when no reply came. */
  readonly status?: number;
  /** `2xx`, `4xx`, ..., `timeout` or `unreachable`. */
  readonly outcome: string;
  /** Milliseconds from sending to the reply (or the failure). */
  readonly ms: number;
  readonly requestBody?: string;
  readonly responseBody?: string;
  /** Why no reply came (time-out, connection refused...). */
  readonly error?: string;
  /** The worker of `serve --workers N` that made the call (its slot, 1..N); absent from a controller of one process. */
  readonly worker?: number;
}

/** An entry as the process that made the call has it, before the live log numbers it. */
export type UnnumberedCallEntry = Omit<EndpointCallEntry, "id" | "worker">;
