/**
 * The event outbox as `/aps/2/events` (provider administrators) shows it: notifications still to
 * be delivered (`pending`) or given up after their retries (`dead`), and what a replay did.
 */

/** A notification in the outbox. */
export interface OutboxNotification {
  readonly id: number;
  /** Its place in the order of events; null until the deliverer numbers it. */
  readonly serial: number | null;
  readonly subscription: string;
  readonly subscriber: string;
  readonly event: string;
  readonly time: string;
  readonly source: { readonly id: string; readonly type: string };
  readonly state: string;
  readonly attempts: number;
  readonly nextAt: string;
  readonly lastError: string | null;
}

/** What `POST /aps/2/events/dead[/{id}]/replay` answers: how many dead notifications were queued again. */
export interface ReplayReport {
  readonly replayed: number;
}
