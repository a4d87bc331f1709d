/**
 * `/aps/2/events` (provider administrators): the outbox of notifications and the subscriptions
 * that fill it. `GET /pending` shows what is still to be delivered, `GET /dead` the dead-letter
 * list (deliveries given up after the retries), `POST /dead/replay` or `POST /dead/{id}/replay`
 * queues them again with a fresh count of attempts, `DELETE /dead/{id}` drops one for good.
 * `GET /subscriptions` lists every subscription of every subscriber (an application lists its own
 * at `/aps/2/resources/{id}/aps/subscriptions`). Each list holds at most {@link LIST_LIMIT}
 * entries, oldest first, and its `Content-Range` says how many there are in all.
 */
import { Hono } from "hono";
import type { ReplayReport } from "../../common/outbox-notification.ts";
import { requireProviderAdmin } from "../auth/caller.ts";
import type { ControllerEnv } from "../context.ts";
import { ControllerError } from "../support/errors.ts";
import type { NotificationStore } from "../events/notification-store.ts";
import type { everySubscription } from "../events/subscription-service.ts";
import { sendJson, sendList } from "../support/http-json.ts";

/** The most entries a list answers. */
export const LIST_LIMIT = 1000;

export function eventOutboxRoutes(
  store: NotificationStore,
  nudge: () => void,
  subscriptions: (limit: number) => ReturnType<typeof everySubscription>,
): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  app.use("*", async (c, next) => {
    requireProviderAdmin(c.get("caller"), "manage event delivery");
    await next();
  });
  for (const state of ["dead", "pending"] as const) {
    app.get(`/${state}`, async (c) => {
      const { items, total } = await store.list(state, LIST_LIMIT);
      return sendList(c, items, 0, total);
    });
  }
  app.get("/subscriptions", async (c) => {
    const { items, total } = await subscriptions(LIST_LIMIT);
    return sendList(c, items, 0, total);
  });
  app.post("/dead/replay", async (c) => {
    const replayed = await store.replay();
    nudge();
    return sendJson(c, { replayed } satisfies ReplayReport);
  });
  app.post("/dead/:id/replay", async (c) => {
    const replayed = await store.replay(idOf(c.req.param("id")));
    if (replayed === 0) throw new ControllerError(404, `There is no dead notification ${c.req.param("id")}.`);
    nudge();
    return sendJson(c, { replayed } satisfies ReplayReport);
  });
  app.delete("/dead/:id", async (c) => {
    if (!(await store.discard(idOf(c.req.param("id")))))
      throw new ControllerError(404, `There is no dead notification ${c.req.param("id")}.`);
    return c.body(null, 204);
  });
  return app;
}

function idOf(text: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(text)) throw new ControllerError(404, `There is no dead notification ${text}.`);
  return Number(text);
}
