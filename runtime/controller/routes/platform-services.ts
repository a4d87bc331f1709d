/**
 * `/aps/2/services/<alias>`: platform singleton services reached by alias (docs/aps/rest-api.md,
 * "Collections": the platform reaches its singleton services so). aps-gen is not the platform
 * around the controller and keeps none of its services' data, so it offers only what a connector
 * needs to learn that: the resource-type manager, which apsconnect-cli asks for before it looks up
 * billing resource types (hub.py:380-446, platform-forms §1.1) - present, with no resource types,
 * since those are made through OA's `addResourceType` RPC, which aps-gen does not serve. Every
 * other alias (the Connect extension's periodic-task-manager, oaclient:81-109) is a 404 that says
 * so.
 *
 * The notification manager is a resource (platform/notification-manager.ts), found by type as
 * FallBall does; its alias here tells where it is.
 */
import { Hono } from "hono";
import type { ControllerEnv } from "../context.ts";
import { ControllerError } from "../support/errors.ts";
import { sendJson, sendList } from "../support/http-json.ts";
import {
  NOTIFICATION_MANAGER_ALIAS,
  NOTIFICATION_MANAGER_TYPE,
  type NotificationManagerLocator,
} from "../platform/notification-manager.ts";

const RESOURCE_TYPE_MANAGER = "resource-type-manager";
const OFFERED = `${RESOURCE_TYPE_MANAGER} (read only, with no resource types) and ${NOTIFICATION_MANAGER_ALIAS} (the resource implementing ${NOTIFICATION_MANAGER_TYPE}: POST and GET /aps/2/resources/<its id>/notifications)`;

export function platformServiceRoutes(notificationManager: NotificationManagerLocator): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  app.get(`/${NOTIFICATION_MANAGER_ALIAS}`, async (c) => {
    const id = await notificationManager.find();
    if (!id)
      throw new ControllerError(
        404,
        `The notification manager is not offered here: its type ${NOTIFICATION_MANAGER_TYPE} is not loaded (the controller was started with --no-core).`,
      );
    return sendJson(c, {
      alias: NOTIFICATION_MANAGER_ALIAS,
      aps: { id, type: NOTIFICATION_MANAGER_TYPE, href: `/aps/2/resources/${id}` },
      notifications: { href: `/aps/2/resources/${id}/notifications` },
    });
  });
  const base = `/${RESOURCE_TYPE_MANAGER}`;
  app.get(base, (c) =>
    sendJson(c, {
      alias: RESOURCE_TYPE_MANAGER,
      resourceTypes: { href: `/aps/2/services/${RESOURCE_TYPE_MANAGER}/resourceTypes` },
    }),
  );
  app.get(`${base}/resourceTypes`, (c) => sendList(c, []));
  app.get(`${base}/resourceTypes/:id`, (c) => {
    throw new ControllerError(
      404,
      `Resource type ${c.req.param("id")} does not exist: this controller keeps no billing resource types (the platform makes them with OA's addResourceType RPC, which aps-gen does not serve).`,
    );
  });
  app.all(`${base}/*`, (c) => {
    throw new ControllerError(
      405,
      `${c.req.method} ${new URL(c.req.url).pathname} is not offered: the resource-type manager here answers GET ${base} and GET ${base}/resourceTypes[/<id>] only.`,
    );
  });
  app.all("/*", (c) =>
    notOffered(/\/aps\/2\/services\/+([^/]*)/.exec(new URL(c.req.url).pathname)?.[1] ?? "", c.req.method),
  );
  return app;
}

function notOffered(alias: string, method: string): never {
  throw new ControllerError(
    404,
    `${alias ? `The platform service "${alias}" is not offered here` : "Name a platform service: /aps/2/services/<alias>"} (${method}): aps-gen runs the APS controller without the platform's services; it offers ${OFFERED}.`,
  );
}
