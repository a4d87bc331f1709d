/**
 * Event subscriptions (docs/aps/events.md, "Subscribing") under
 * `/aps/2/resources/{subscriberID}/aps/subscriptions`: list, create, delete. The subscriber is an
 * application resource: its handler must be a POST operation of its type (that is where
 * notifications go, docs/aps/events.md, "The notification"). A subscription made while the
 * subscriber is being provisioned is staged and stored with it (see staged-subscriptions.ts).
 */
import { randomUUID } from "node:crypto";
import { and, asc, count, eq } from "drizzle-orm";
import type { Subscription, SubscriptionEntry } from "../../common/subscription.ts";
import { ControllerError } from "../support/errors.ts";
import { implementsType, type RegistryType, type TypeRegistry } from "../registry.ts";
import type { Db } from "../store/open-database.ts";
import type { ResourceStore } from "../store/resource-store.ts";
import { subscriptions } from "../store/schema.ts";
import { CoreEvent, LINK_EVENTS, PLATFORM_SUBSCRIPTION_TYPE } from "./core-events.ts";
import { StagedSubscriptions } from "./staged-subscriptions.ts";
import { isUuid } from "../support/uuid.ts";

/** The subscriber of a request: stored, or being provisioned right now. */
export interface Subscriber {
  readonly id: string;
  readonly type: RegistryType;
  /** Being provisioned (its provisioning's transaction id names it): subscriptions are staged. */
  readonly staged?: boolean;
}

type SubscriptionRow = typeof subscriptions.$inferSelect;

export class SubscriptionService {
  constructor(
    private readonly registry: () => TypeRegistry,
    private readonly refresh: () => Promise<void>,
    private readonly db: Db,
    private readonly store: ResourceStore,
  ) {}

  async list(subscriber: Subscriber): Promise<Subscription[]> {
    const rows = subscriber.staged
      ? await this.staging(subscriber).list()
      : await this.db
          .select()
          .from(subscriptions)
          .where(eq(subscriptions.subscriberId, subscriber.id))
          .orderBy(asc(subscriptions.created), asc(subscriptions.id));
    return rows.map(view);
  }

  async create(subscriber: Subscriber, body: unknown): Promise<Subscription> {
    const row: SubscriptionRow = {
      id: randomUUID(),
      subscriberId: subscriber.id,
      created: new Date().toISOString(),
      ...(await this.parse(subscriber.type, body)),
    };
    if (subscriber.staged) await this.staging(subscriber).add(row);
    else await this.db.insert(subscriptions).values(row);
    return view(row);
  }

  async remove(subscriber: Subscriber, id: string): Promise<void> {
    const gone = !isUuid(id)
      ? false
      : subscriber.staged
        ? await this.staging(subscriber).remove(id)
        : (
            await this.db
              .delete(subscriptions)
              .where(and(eq(subscriptions.id, id), eq(subscriptions.subscriberId, subscriber.id)))
              .returning({ id: subscriptions.id })
          ).length > 0;
    if (!gone) throw new ControllerError(404, `${subscriber.id} has no subscription ${id}.`);
  }

  private staging(subscriber: Subscriber): StagedSubscriptions {
    return new StagedSubscriptions(this.db, subscriber.id);
  }

  /** Checks a subscription body against the subscriber's type and the source. */
  private async parse(
    type: RegistryType,
    body: unknown,
  ): Promise<Pick<SubscriptionRow, "event" | "sourceType" | "sourceId" | "relation" | "handler">> {
    if (typeof body !== "object" || body === null || Array.isArray(body))
      throw new ControllerError(
        400,
        'The body must be a subscription: {"event": "<event type URI>", "source": {"type": "<type id>"} or {"id": "<resource id>"}, "handler": "<operation>"}.',
      );
    const { event, source, handler, relation } = body as Record<string, unknown>;
    if (typeof event !== "string" || !/^[a-z][a-z0-9+.-]*:\S+$/i.test(event))
      throw new ControllerError(
        400,
        'event must be the URI of an event type, e.g. "http://aps-standard.org/core/events/changed".',
      );
    const operations = Object.entries(type.operations).filter(([, op]) => !op.base && !op.static && op.verb === "POST");
    if (typeof handler !== "string" || !operations.some(([name]) => name === handler)) {
      throw new ControllerError(
        400,
        `handler must name a POST operation of ${type.name}, which receives the notifications; ${operations.length ? `it has ${operations.map(([n]) => n).join(", ")}` : "it declares none"}.`,
      );
    }
    const src = source as { type?: unknown; id?: unknown } | undefined;
    if (typeof src !== "object" || src === null || (src.type === undefined) === (src.id === undefined))
      throw new ControllerError(
        400,
        'source must name either a type ({"type": "<type id>"}) or one resource ({"id": "<resource id>"}).',
      );
    let sourceTypeId: string;
    if (src.type !== undefined) {
      if (typeof src.type !== "string") throw new ControllerError(400, "source.type must be a type id.");
      if (!this.registry().has(src.type)) await this.refresh();
      if (!this.registry().has(src.type))
        throw new ControllerError(
          400,
          `source.type ${src.type} is not a type this controller knows; list them at /aps/2/types.`,
        );
      sourceTypeId = src.type;
    } else {
      const row = typeof src.id === "string" && isUuid(src.id) ? await this.store.get(src.id) : undefined;
      if (!row) throw new ControllerError(400, `source.id ${String(src.id)} is not a resource.`);
      sourceTypeId = row.typeId;
    }
    if (
      event === CoreEvent.limitsChanged &&
      !implementsType(this.registry(), sourceTypeId, PLATFORM_SUBSCRIPTION_TYPE)
    ) {
      throw new ControllerError(
        400,
        `Only platform subscriptions (${PLATFORM_SUBSCRIPTION_TYPE}) raise ${event}; ${sourceTypeId} does not.`,
      );
    }
    // Connect sends "relation": "" for none (docs/platform-forms.md §1.2, oaclient:55-66); null is none too.
    if (relation !== undefined && relation !== null && relation !== "") {
      if (!LINK_EVENTS.has(event)) throw new ControllerError(400, "relation only narrows linked and unlinked events.");
      const relations = Object.keys(this.registry().get(sourceTypeId)?.relations ?? {});
      if (typeof relation !== "string" || !relations.includes(relation))
        throw new ControllerError(
          400,
          `relation must be a relation of ${sourceTypeId}${relations.length ? `: ${relations.join(", ")}` : ", which has none"}.`,
        );
    }
    return {
      event,
      sourceType: src.type !== undefined ? sourceTypeId : null,
      sourceId: src.id !== undefined ? String(src.id) : null,
      relation: typeof relation === "string" && relation ? relation : null,
      handler,
    };
  }
}

/**
 * Every stored subscription, oldest first, at most `limit` of them, with how many there are
 * (`GET /aps/2/events/subscriptions`, for provider administrators: the console's Activity page).
 * Staged ones (made while their subscriber is being provisioned) are not stored yet.
 */
export async function everySubscription(
  db: Db,
  limit: number,
): Promise<{ readonly items: SubscriptionEntry[]; readonly total: number }> {
  const [rows, [counted]] = await Promise.all([
    db.select().from(subscriptions).orderBy(asc(subscriptions.created), asc(subscriptions.id)).limit(limit),
    db.select({ n: count() }).from(subscriptions),
  ]);
  const items = rows.map((row) => ({
    ...view(row),
    subscriber: row.subscriberId,
    created: new Date(row.created).toISOString(),
  }));
  return { items, total: Math.max(items.length, Number(counted?.n ?? 0)) };
}

function view(row: SubscriptionRow): Subscription {
  return {
    id: row.id,
    event: row.event,
    // parse() stores exactly one of the two.
    source: row.sourceId ? { id: row.sourceId } : { type: row.sourceType! },
    ...(row.relation ? { relation: row.relation } : {}),
    handler: row.handler,
  };
}
