/**
 * The console's one way to the controller: the project's client runtime (runtime/client) with the
 * signed-in token as `APS-Token`, against the origin that served the console. Every failed call is
 * an {@link ApsError} (the controller's error body: status, class, message, and for validation
 * errors one entry per problem with the JSON pointer it names); {@link fieldErrors} sorts those
 * onto form fields. A 401 signs the console out (the token expired or was revoked).
 */
import { createClient, send, sendJson, type ApsCall, type ApsClient } from "../../runtime/client/client.ts";
import { ApsError, apsErrorOf } from "../../runtime/client/aps-error.ts";
import { listPage, type Page } from "../../runtime/client/pages.ts";
import { clearToken, storedToken } from "./token.ts";

export { ApsError } from "../../runtime/client/aps-error.ts";
export type { Page } from "../../runtime/client/pages.ts";

/** Told when a call answered 401, so the app can go back to the sign-in page. */
let onSignedOut: () => void = () => {};

/** Sets what happens when the controller no longer accepts the token. */
export function whenSignedOut(listener: () => void): void {
  onSignedOut = listener;
}

/** A client for the controller that served the console, with the signed-in token. */
export function consoleClient(): ApsClient {
  const token = storedToken();
  return createClient({ baseUrl: location.origin, ...(token ? { token } : {}) });
}

/**
 * Runs a call of the client runtime with the console's client; a reply that never came (network,
 * TLS) is an ApsError with status 0, and a 401 signs out before the error reaches the caller.
 */
export async function withClient<T>(call: (client: ApsClient) => Promise<T>): Promise<T> {
  try {
    return await call(consoleClient());
  } catch (error) {
    throw failure(error);
  }
}

/** The ApsError a failed call stands for; a 401 signs out first. */
function failure(error: unknown): ApsError {
  if (!(error instanceof ApsError))
    return new ApsError(0, "NetworkError", `The controller could not be reached: ${(error as Error).message}`);
  if (error.status === 401) {
    clearToken();
    onSignedOut();
  }
  return error;
}

/** GET `path` (below the origin, already escaped) as JSON. */
export function getJson<T>(path: string, query?: string): Promise<T> {
  return withClient((client) => sendJson<T>(client, { method: "GET", path, ...(query ? { query } : {}) }));
}

/** One page of a list at `path` with an RQL query (its `Content-Range` read). */
export function getPage<T>(path: string, rql = ""): Promise<Page<T>> {
  return withClient((client) => listPage<T>(client, path, rql));
}

/** Any call whose reply is JSON (or nothing: undefined). */
export function callJson<T>(call: ApsCall): Promise<T> {
  return withClient((client) => sendJson<T>(client, call));
}

/** Any call; resolves with the reply when 2xx. */
export function callRaw(call: ApsCall): Promise<Response> {
  return withClient((client) => send(client, call));
}

/** A path segment, percent-encoded (type ids hold `/` and `:`). */
export function segment(value: string): string {
  return encodeURIComponent(value);
}

/** Problems of a failed call sorted by the form field they name, and those that name none. */
export interface FieldErrors {
  /** By top-level property name (the first segment of the error's JSON pointer). */
  readonly fields: ReadonlyMap<string, readonly string[]>;
  /** Messages for no field in particular (the body itself, or an error without details). */
  readonly general: readonly string[];
}

/**
 * Sorts an error onto fields: each validation problem by the first segment of its JSON pointer
 * (`/address/city` -> `address`, the message saying where below it). Not an ApsError: one general message.
 */
export function fieldErrors(error: unknown): FieldErrors {
  const fields = new Map<string, string[]>();
  const general: string[] = [];
  if (!(error instanceof ApsError)) return { fields, general: [String((error as Error)?.message ?? error)] };
  for (const problem of error.details) {
    const field = fieldOfPointer(problem.path);
    if (field === undefined) general.push(problem.message);
    else {
      const rest = problem.path.slice(1).split("/").slice(1).map(decodePointerSegment).join("/");
      fields.set(field, [...(fields.get(field) ?? []), rest ? `${rest}: ${problem.message}` : problem.message]);
    }
  }
  if (error.details.length === 0) general.push(error.message);
  return { fields, general };
}

/** The property a JSON pointer starts with (`/name/0` -> `name`), undefined for `""` (the body). */
export function fieldOfPointer(pointer: string): string | undefined {
  if (!pointer.startsWith("/")) return undefined;
  return decodePointerSegment(pointer.slice(1).split("/")[0]!);
}

function decodePointerSegment(s: string): string {
  return s.replace(/~1/g, "/").replace(/~0/g, "~");
}

/**
 * Reads a server-sent event stream with the token as a header (an `EventSource` cannot send
 * one, and the token stays out of URLs): calls `onData` with each event's `data` parsed as JSON
 * until `signal` aborts or the stream ends. Rejects with an ApsError when the reply is not 2xx.
 */
export async function streamEvents(path: string, onData: (data: unknown) => void, signal: AbortSignal): Promise<void> {
  const token = storedToken();
  let reply: Response;
  try {
    reply = await fetch(path, {
      headers: { accept: "text/event-stream", ...(token ? { "APS-Token": token } : {}) },
      signal,
      cache: "no-store",
    });
  } catch (error) {
    if (signal.aborted) return;
    throw failure(error);
  }
  // The same error as any other call (status, class, message), and the same 401 handling.
  if (!reply.ok || !reply.body) throw failure(await apsErrorOf(reply));
  const reader = reply.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      // Events end with a blank line; `data:` lines of one event are joined with newlines.
      let end: number;
      while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
        const data = event
          .split(/\r?\n/)
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).replace(/^ /, ""))
          .join("\n");
        if (data) onData(JSON.parse(data));
      }
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  } finally {
    reader.releaseLock();
  }
}
