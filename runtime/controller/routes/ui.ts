/** The UI endpoints (docs/aps/rest-api.md, "Collections"): runtime version and the control panel's navigation tree. */
import { Hono } from "hono";
import type { ControllerEnv } from "../context.ts";
import { ControllerError } from "../support/errors.ts";
import { nestsDeeperThan } from "../../common/json-nesting.ts";
import { requireProviderAdmin } from "../auth/caller.ts";
import { parseRequestJson, sendJson } from "../support/http-json.ts";
import { readBodyBytes } from "../support/request-body.ts";
import type { Db } from "../store/open-database.ts";
import { navigation } from "../store/schema.ts";

/** Version of the UI runtime this controller reports. */
const UI_RUNTIME_VERSION = "2.0";

export function uiRuntimeRoutes(): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  app.get("/version.html", (c) => c.html(`<!doctype html><html><body>${UI_RUNTIME_VERSION}</body></html>`));
  return app;
}

/** Bounds of the navigation tree (issue 15). */
export interface NavigationLimits {
  /** Largest body in bytes. Default 256 KiB. */
  readonly maxBytes: number;
  /** Deepest nesting of arrays and objects. Default 32. */
  readonly maxDepth: number;
  /** Most values (objects, arrays, strings, numbers...) in the tree. Default 10,000. */
  readonly maxNodes: number;
}

/** Defaults of {@link NavigationLimits}. */
export const DEFAULT_NAVIGATION_LIMITS: NavigationLimits = { maxBytes: 256 * 1024, maxDepth: 32, maxNodes: 10_000 };

/**
 * The one row the tree is stored in: each POST replaces it (an upsert, so two at once still
 * leave one tree), and the tree's `id` in the reply is this.
 */
const NAVIGATION_TREE_ID = "00000000-0000-4000-8000-000000000001";

/**
 * `POST /aps/2/navigation`: a provider administrator replaces the control panel's navigation
 * tree, bounded in bytes, depth and number of values.
 */
export function navigationRoutes(db: Db, limits: NavigationLimits = DEFAULT_NAVIGATION_LIMITS): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  app.post("/", async (c) => {
    // Before the body is read: anyone else's tree costs nothing.
    requireProviderAdmin(c.get("caller"), "replace the navigation tree");
    const type = c.req.header("content-type");
    if (type && !/^application\/([\w.+-]*\+)?json\b/i.test(type))
      throw new ControllerError(415, `The body must be application/json, not ${type}.`);
    const text = (await readBodyBytes(c, limits.maxBytes)).toString("utf8");
    if (nestsDeeperThan(text, limits.maxDepth))
      throw new ControllerError(400, `A navigation tree nests at most ${limits.maxDepth} levels deep.`);
    const body = parseRequestJson(text);
    if (typeof body !== "object" || body === null || Array.isArray(body))
      throw new ControllerError(400, "A navigation tree is a JSON object.");
    const nodes = countValues(body, limits.maxNodes);
    if (nodes > limits.maxNodes)
      throw new ControllerError(
        413,
        `A navigation tree holds at most ${limits.maxNodes} values (objects, arrays, strings, numbers...); this one holds more.`,
      );
    const tree = { ...(body as Record<string, unknown>), id: NAVIGATION_TREE_ID };
    const created = new Date().toISOString();
    await db
      .insert(navigation)
      .values({ id: NAVIGATION_TREE_ID, body: tree, created })
      .onConflictDoUpdate({ target: navigation.id, set: { body: tree, created } });
    return sendJson(c, tree, 201);
  });
  return app;
}

/** The number of values in `value`, counting stops once past `max`. Depth is bounded before. */
function countValues(value: unknown, max: number): number {
  let count = 0;
  const walk = (v: unknown): void => {
    if (++count > max) return;
    if (v === null || typeof v !== "object") return;
    for (const member of Array.isArray(v) ? v : Object.values(v)) {
      walk(member);
      if (count > max) return;
    }
  };
  walk(value);
  return count;
}
