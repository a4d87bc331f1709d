/**
 * Event subscriptions of a subscriber resource (docs/aps/events.md, "Subscribing") as
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

/** A subscription as `GET /aps/2/events/subscriptions` lists it: with the resource it belongs to, and when it was made. */
export interface SubscriptionEntry<Handler extends string = string> extends Subscription<Handler> {
  /** The subscriber: the application resource notifications go to. */
  readonly subscriber: string;
  readonly created: string;
}
