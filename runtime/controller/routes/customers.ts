/**
 * `POST /aps/2/customers/{account-id}/suspend` and `/resume`: one call that disables (enables)
 * every Suspendable resource of a customer and the accounts below it. The platform suspends
 * customers but documents no API for it (docs/aps/lifecycle.md, "Suspendable types").
 */
import { Hono } from "hono";
import type { ControllerEnv } from "../context.ts";
import { sendJson } from "../support/http-json.ts";
import type { Suspension } from "../suspension/suspension.ts";

export function customerRoutes(service: Suspension): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  app.post("/:id/suspend", async (c) =>
    sendJson(c, await service.suspendCustomer(c.get("caller"), c.req.param("id"), true)),
  );
  app.post("/:id/resume", async (c) =>
    sendJson(c, await service.suspendCustomer(c.get("caller"), c.req.param("id"), false)),
  );
  return app;
}
