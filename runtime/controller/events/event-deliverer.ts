/**
 * Delivers the outbox (docs/aps/events.md, "Delivery") in the background of every controller
 * process: gives serials, claims the next notification of each subscriber, and POSTs it to the
 * handler operation's path on the subscriber,
 * `<endpoint>/<service>/<subscriberID><operation path>`, as real connectors serve it, or to
 * `<endpoint>/<service>/events/<subscriberID>/<handler>`
 * where nothing is routed there (handler-path.ts). 200/204 delivered; 202 tried again later as
 * often as the subscriber asks (docs/aps/events.md, "Delivery"); any other answer, a time-out or an
 * unreachable endpoint is retried with exponential backoff a bounded number of times, then the
 * notification lands in the dead-letter list (an admin lists and replays it). At least once, in
 * serial order per subscriber: a process that dies mid-delivery leaves it to the lease.
 */
import type { Logger } from "pino";
import type { EventNotification } from "../../common/event-notification.ts";
import { DatabaseOutageLog } from "../observability/database-outage-log.ts";
import { isDatabaseUnavailable } from "../store/database-unavailable.ts";
import { BackgroundLoop } from "../support/background-loop.ts";
import { ControllerError } from "../support/errors.ts";
import type { EndpointReply, EndpointTarget } from "../forward/endpoint-client.ts";
import { loggableError } from "../support/loggable-error.ts";
import type { TypeRegistry } from "../registry.ts";
import { sendToRouted } from "../forward/routed-path.ts";
import { handlerPaths } from "./handler-path.ts";
import type { ClaimedNotification, NotificationStore } from "./notification-store.ts";

/** How failed deliveries are retried. */
export interface DeliveryPolicy {
  /** Failures (not 202s) before a notification is dead; the platform tries 10 times (docs/aps/events.md, "Delivery"). */
  readonly maxAttempts: number;
  /** Wait after the first failure; doubled after each further one. */
  readonly retryBaseSeconds: number;
  /** Longest wait between attempts. */
  readonly retryMaxSeconds: number;
  /** Wait after a 202 without APS-Retry-Timeout. */
  readonly acceptedRetrySeconds: number;
  /** Pause when there is nothing to do. */
  readonly idleMs: number;
}

export const defaultDeliveryPolicy: DeliveryPolicy = {
  maxAttempts: 10,
  retryBaseSeconds: 5,
  retryMaxSeconds: 600,
  acceptedRetrySeconds: 30,
  idleMs: 200,
};

/** What the deliverer needs from the rest of the controller. */
export interface DeliveryTargets {
  readonly registry: () => TypeRegistry;
  targetOf(instanceId: string): Promise<EndpointTarget | undefined>;
  /** POSTs the notification to `path` on the endpoint. */
  notify(target: EndpointTarget, path: string, notification: EventNotification): Promise<EndpointReply>;
}

export class EventDeliverer {
  private readonly loop: BackgroundLoop;

  constructor(
    private readonly store: NotificationStore,
    private readonly targets: DeliveryTargets,
    private readonly logger: Logger,
    private readonly policy: DeliveryPolicy = defaultDeliveryPolicy,
  ) {
    this.loop = new BackgroundLoop(
      () => this.deliverBatch(),
      policy.idleMs,
      (error) => this.logger.error({ error: loggableError(error) }, "event delivery round failed"),
      new DatabaseOutageLog(logger, "event delivery"),
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Stops claiming and waits for the deliveries in hand. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Looks at the outbox now rather than after the idle pause (a change was just committed). */
  nudge(): void {
    this.loop.nudge();
  }

  /** Numbers what was committed, then delivers one batch; false when there was nothing to send. */
  private async deliverBatch(): Promise<boolean> {
    await this.store.sequence();
    const batch = await this.store.claim(32);
    if (!batch.length) return false;
    // One per subscriber: they may go in parallel without breaking any subscriber's order.
    await Promise.all(batch.map((n) => this.deliver(n)));
    return true;
  }

  private async deliver(n: ClaimedNotification): Promise<void> {
    let reply: EndpointReply | undefined;
    let problem = "";
    let sentTo = "";
    try {
      const type = this.targets.registry().get(n.subscriberType);
      const target = n.instanceId ? await this.targets.targetOf(n.instanceId) : undefined;
      if (!type?.service || !target) problem = `the subscriber ${n.subscriberId} has no application endpoint`;
      else {
        const body = notificationBody(n);
        const paths = handlerPaths(type, type.service, n.subscriberId, n.handler);
        // Where no form is routed, the last (the `events/` form) answers for the endpoint.
        const sent = await sendToRouted(paths, (path) => this.targets.notify(target, path, body), "last");
        reply = sent.reply;
        sentTo = sent.path;
      }
    } catch (error) {
      // The subscriber was not at fault: the notification stays claimed, and is sent again once
      // its lease ends, without counting an attempt against it.
      if (isDatabaseUnavailable(error)) throw error;
      problem = error instanceof ControllerError ? error.message : (error as Error).message;
    }
    if (reply && (reply.status === 200 || reply.status === 204)) {
      await this.store.delivered(n.id);
      this.logger.info({ serial: n.serial, event: n.event, subscriber: n.subscriberId }, "event delivered");
      return;
    }
    if (reply?.status === 202) {
      const asked = Number(headerOf(reply, "aps-retry-timeout"));
      await this.store.later(
        n.id,
        Number.isFinite(asked) && asked >= 0 ? Math.min(asked, 86_400) : this.policy.acceptedRetrySeconds,
      );
      return;
    }
    if (reply)
      problem = `the handler at ${sentTo} answered ${reply.status}: ${reply.body.toString("utf8").slice(0, 300)}`;
    const failures = n.attempts + 1;
    const dead = failures >= this.policy.maxAttempts;
    const wait = Math.min(this.policy.retryBaseSeconds * 2 ** (failures - 1), this.policy.retryMaxSeconds);
    await this.store.failed(n.id, problem, wait, dead);
    this.logger.warn(
      { serial: n.serial, event: n.event, subscriber: n.subscriberId, attempt: failures, dead, problem },
      dead ? "event delivery given up: dead letter" : "event delivery failed; will retry",
    );
  }
}

/**
 * The notification body (docs/aps/events.md, "The notification"). `type` repeats `event` for
 * handlers written against the older core `Notification` structure; link events also name the
 * relation and the other end of the link.
 */
export function notificationBody(n: ClaimedNotification): EventNotification {
  return {
    event: n.event,
    type: n.event,
    time: n.time,
    serial: n.serial,
    subscription: n.subscriptionId,
    source: { id: n.sourceId, type: n.sourceType },
    ...(n.relation ? { relation: n.relation } : {}),
    ...(n.targetId ? { target: { id: n.targetId } } : {}),
  };
}

function headerOf(reply: EndpointReply, name: string): string | undefined {
  const v = reply.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
