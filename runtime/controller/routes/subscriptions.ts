/**
 * `/aps/2/resources/{subscriberID}/aps/subscriptions[/{id}]` (docs/aps/events.md, "Subscribing").
 * Mounted before the token check: the subscribing application calls with its instance certificate
 * (docs/aps/security.md, "Application credentials"); a token caller needs configure access on the
 * subscriber. The `APS-Transaction-ID` of a provisioning call in flight lets the application
 * subscribe for the resource it is creating (forward/transaction-store.ts).
 */
import type { HttpBindings } from "@hono/node-server";
import { Hono, type Context } from "hono";
import type { ResourceAccess } from "../access/resource-access.ts";
import type { CallerResolver } from "../auth/caller.ts";
import { requestSource } from "../auth/request-source.ts";
import { peerCertificate } from "../auth/peer-certificate.ts";
import { ControllerError } from "../support/errors.ts";
import type { Subscriber, SubscriptionService } from "../events/subscription-service.ts";
import type { TransactionStore } from "../forward/transaction-store.ts";
import { parseRequestJson, readJsonBody, sendJson, sendList } from "../support/http-json.ts";
import type { InstanceLookup } from "../instances/instance-lookup.ts";
import type { TypeRegistry } from "../registry.ts";
import type { ResourceStore } from "../store/resource-store.ts";
import { isUuid } from "../support/uuid.ts";
import { readBodyBytes } from "../support/request-body.ts";

type Env = { Bindings: HttpBindings };

/** What finding the subscriber takes. */
export interface SubscriberLookup {
  readonly registry: () => TypeRegistry;
  readonly store: ResourceStore;
  readonly access: ResourceAccess;
  readonly callers: CallerResolver;
  readonly instances: InstanceLookup;
  readonly transactions: TransactionStore;
  /** The instance of an OAuth-signed request, undefined when it carries no OAuth header (auth/oauth-verifier.ts). */
  readonly oauth?: (c: Context<Env>) => Promise<string | undefined>;
}

export function subscriptionRoutes(service: SubscriptionService, lookup: SubscriberLookup): Hono<Env> {
  const app = new Hono<Env>();
  app.get("/:id/aps/subscriptions", async (c) => {
    const items = await service.list(await subscriberOf(c, lookup));
    return sendList(c, items);
  });
  app.post("/:id/aps/subscriptions", async (c) => {
    const subscriber = await subscriberOf(c, lookup);
    // 200 with the subscription: Connect and FallBall take nothing else (docs/platform-forms.md
    // §1.2, §1.3), and the platform documents no 201 for it (docs/aps/events.md, "Subscribing").
    return sendJson(c, await service.create(subscriber, await readJsonBody(c)), 200);
  });
  // DELETE .../aps/subscriptions without an id (docs/aps/events.md, "Subscribing"): the one named
  // by query or body `id`.
  app.delete("/:id/aps/subscriptions", async (c) => {
    const subscriber = await subscriberOf(c, lookup);
    // Read within the body limit, as every other body (support/request-body.ts).
    const body = (await readBodyBytes(c)).toString("utf8").trim();
    const fromBody = body ? (parseRequestJson(body) as { id?: unknown } | null)?.id : undefined;
    const id = c.req.query("id") ?? fromBody;
    if (typeof id !== "string" || !id)
      throw new ControllerError(
        400,
        'DELETE .../aps/subscriptions names the subscription to remove by ?id=<id> or a body {"id": <id>}; or DELETE .../aps/subscriptions/<id>.',
      );
    await service.remove(subscriber, id);
    return c.body(null, 204);
  });
  app.delete("/:id/aps/subscriptions/:sid", async (c) => {
    await service.remove(await subscriberOf(c, lookup), c.req.param("sid"));
    return c.body(null, 204);
  });
  app.all("/:id/aps/subscriptions", (c) => {
    throw new ControllerError(
      405,
      `${c.req.method} is not a subscription operation; use GET or POST .../aps/subscriptions and DELETE .../aps/subscriptions/<id> (or ?id=<id>).`,
    );
  });
  return app;
}

async function subscriberOf(c: Context<Env>, lookup: SubscriberLookup): Promise<Subscriber> {
  const id = c.req.param("id")!;
  const token = c.req.header("aps-token");
  if (token) {
    const { type } = await lookup.access.visible(
      await lookup.callers.resolve(token, requestSource(c)),
      id,
      "configure",
    );
    return { id, type };
  }
  const peer = peerCertificate(c);
  // Read only for what is not stored yet (an install or a provisioning in flight); a second read is remembered.
  const transaction = () => lookup.transactions.read(c.req.header("aps-transaction-id"));
  let instanceId: string | undefined;
  if (peer) {
    if (!peer.authorized) throw new ControllerError(401, "The client certificate was not issued by this controller.");
    const instance = await lookup.instances.byFingerprint(peer.fingerprint);
    // During an install the instance is not stored yet: its new certificate is in the claims.
    const pending = instance ? undefined : await transaction();
    instanceId = instance?.id ?? (pending?.fingerprint === peer.fingerprint ? pending.instanceId : undefined);
  } else {
    // FallBall and the Connect extension subscribe with an OAuth signature (platform-forms §1.2, §1.3).
    instanceId = await lookup.oauth?.(c);
    if (!instanceId)
      throw new ControllerError(
        401,
        "Subscribing needs the instance certificate (or OAuth signature) of the subscriber's application, or an APS-Token.",
      );
  }
  if (!instanceId)
    throw new ControllerError(
      403,
      "No application instance holds this certificate (was it re-issued or the instance removed?).",
    );
  const row = isUuid(id) ? await lookup.store.get(id) : undefined;
  const pending = row ? undefined : await transaction();
  if (pending && pending.resourceId === id && pending.instanceId === instanceId) {
    // The resource this transaction is provisioning: staged until it is stored.
    const type = lookup.registry().get(pending.typeId);
    if (type) return { id, type, staged: true };
  }
  const type = row && lookup.registry().get(row.typeId);
  if (!row || !type || row.instanceId !== instanceId)
    throw new ControllerError(404, `Resource ${id} is not one of this instance's resources.`);
  return { id, type };
}
