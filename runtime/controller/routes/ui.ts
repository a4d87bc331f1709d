/** The UI endpoints of SPEC 4.1: runtime version and control-panel navigation trees. */
import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import type { ControllerEnv } from "../context.ts";
import { ApsError } from "../errors.ts";
import { readJsonBody, sendJson } from "../http-json.ts";
import type { Db } from "../store/open-database.ts";
import { navigation } from "../store/schema.ts";

/** Version of the UI runtime this controller reports. */
export const UI_RUNTIME_VERSION = "2.0";

export function uiRuntimeRoutes(): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  app.get("/version.html", (c) => c.html(`<!doctype html><html><body>${UI_RUNTIME_VERSION}</body></html>`));
  return app;
}

export function navigationRoutes(db: Db): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  app.post("/", async (c) => {
    const body = await readJsonBody(c);
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw new ApsError(400, "A navigation tree is a JSON object.");
    const id = randomUUID();
    await db.insert(navigation).values({ id, body: body as Record<string, unknown>, created: new Date().toISOString() });
    // The stored id wins over an "id" inside the tree.
    return sendJson(c, { ...body, id }, 201);
  });
  return app;
}
