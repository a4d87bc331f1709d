/**
 * Event subscriptions of a subscriber resource (SPEC 6.1) as
 * `/aps/2/resources/{id}/aps/subscriptions` takes and answers them.
 */

/** What a subscription asks for; `handler` names a POST operation of the subscriber's type. */
export interface SubscriptionRequest<Handler extends string = string> {
  /** The URI of the event type. */
  readonly event: string;
  /** Every resource of a type, or one resource. */
  readonly source: { readonly type: string } | { readonly id: string };
  readonly handler: Handler;
  /** linked/unlinked only: the relation of the source. */
  readonly relation?: string;
}

/** A stored subscription. */
export interface Subscription<Handler extends string = string> extends SubscriptionRequest<Handler> {
  readonly id: string;
}
