/** Event subscriptions of a subscriber resource (docs/aps/events.md, "Subscribing"): `/aps/2/resources/{id}/aps/subscriptions`. */
import type { Subscription, SubscriptionRequest } from "../common/subscription.ts";
import { segment, send, sendJson, type ApsClient } from "./client.ts";

export type { Subscription, SubscriptionRequest } from "../common/subscription.ts";

const base = (subscriberId: string) => `/aps/2/resources/${segment(subscriberId)}/aps/subscriptions`;

export function subscribe<H extends string>(
  client: ApsClient,
  subscriberId: string,
  request: SubscriptionRequest<H>,
): Promise<Subscription<H>> {
  return sendJson(client, { method: "POST", path: base(subscriberId), json: request });
}

export function listSubscriptions<H extends string = string>(
  client: ApsClient,
  subscriberId: string,
): Promise<Subscription<H>[]> {
  return sendJson(client, { method: "GET", path: base(subscriberId) });
}

export async function unsubscribe(client: ApsClient, subscriberId: string, subscriptionId: string): Promise<void> {
  await send(client, { method: "DELETE", path: `${base(subscriberId)}/${segment(subscriptionId)}` });
}
