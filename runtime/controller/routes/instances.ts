/**
 * `/aps/2/instances` (provider administrators): install an application instance of an imported
 * package at its endpoint, list and read instances. The APS documents leave this administration
 * API open; see README.
 */
import { Hono } from "hono";
import type { ControllerEnv } from "../context.ts";
import { readJsonBody, sendJson, sendList } from "../support/http-json.ts";
import type { InstanceLifecycle } from "../instances/instance-lifecycle.ts";

export function instanceRoutes(service: InstanceLifecycle): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  app.post("/", async (c) => sendJson(c, await service.install(c.get("caller"), await readJsonBody(c)), 201));
  app.get("/", async (c) => {
    const list = await service.list(c.get("caller"));
    return sendList(c, list);
  });
  app.get("/:id", async (c) => sendJson(c, await service.describe(c.get("caller"), c.req.param("id"))));
  app.delete("/:id", async (c) =>
    sendJson(c, await service.uninstall(c.get("caller"), c.req.param("id"), c.req.query("force") === "true")),
  );
  // Upgrade to a newer package of the instance's application (instances/instance-upgrade.ts).
  app.post("/:id/upgrade", async (c) =>
    sendJson(c, await service.upgrade(c.get("caller"), c.req.param("id"), await readJsonBody(c))),
  );
  app.post("/:id/credentials", async (c) => sendJson(c, await service.reissue(c.get("caller"), c.req.param("id"))));
  app.get("/:id/health", async (c) => sendJson(c, await service.health(c.get("caller"), c.req.param("id"))));
  return app;
}
