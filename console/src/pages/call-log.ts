/**
 * The live log of calls to application endpoints, as `GET /aps/2/console/calls` streams them
 * (docs/console.md): one EndpointCallEntry per event, the last 200 replayed to a new listener.
 */
import type { EndpointCallEntry } from "../../../runtime/common/endpoint-call-entry.ts";

export type { EndpointCallEntry } from "../../../runtime/common/endpoint-call-entry.ts";

/** Entries kept on the page: as many as the controller keeps and replays (its ring of 200). */
export const MAX_CALLS = 200;

/** Adds a call to the log, newest first; an entry sent again (same id, after a reconnect) replaces the earlier one. */
export function addCall(calls: readonly EndpointCallEntry[], call: EndpointCallEntry): EndpointCallEntry[] {
  return [call, ...calls.filter((c) => c.id !== call.id)].slice(0, MAX_CALLS);
}

/** Whether a streamed event is an entry of the log (anything else is ignored). */
export function isCallEntry(data: unknown): data is EndpointCallEntry {
  if (typeof data !== "object" || data === null) return false;
  const d = data as Record<string, unknown>;
  return (
    typeof d.id === "number" && typeof d.method === "string" && typeof d.path === "string" && typeof d.at === "string"
  );
}
