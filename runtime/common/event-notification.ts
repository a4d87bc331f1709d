/**
 * The body of an event notification the controller POSTs to a subscriber's handler
 * (docs/aps/events.md, "The notification"). It is what the core `Notification` structure describes
 * (types/core), which typed handlers receive; test/controller/wire-contract.test.ts holds the two
 * together.
 */
export interface EventNotification {
  /** The URI of the event type. */
  readonly event: string;
  /** `event` again, for handlers written against the older core `Notification` structure (docs/aps/events.md, "The notification"). */
  readonly type: string;
  /** When the event happened (ISO 8601). */
  readonly time: string;
  /** Larger means later; in order per subscriber. */
  readonly serial: number;
  /** The subscription that asked for it. */
  readonly subscription: string;
  /** The resource that raised the event. */
  readonly source: { readonly id: string; readonly type: string };
  /** linked and unlinked: the relation of the source whose link changed. */
  readonly relation?: string;
  /** linked and unlinked: the resource at the other end of the link. */
  readonly target?: { readonly id: string };
}
