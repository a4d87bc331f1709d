/** `/aps/2/tasks` (provider administrators): asynchronous operations, their APS-Info, attempts and last error. */
import { Hono } from "hono";
import type { TaskInfo } from "../../common/task-info.ts";
import { requireProviderAdmin } from "../auth/caller.ts";
import type { ControllerEnv } from "../context.ts";
import { ControllerError } from "../support/errors.ts";
import { sendList } from "../support/http-json.ts";
import type { TaskRow, TaskStore } from "../tasks/task-store.ts";
import { isUuid } from "../support/uuid.ts";

export function taskRoutes(tasks: TaskStore): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  app.get("/", async (c) => {
    requireProviderAdmin(c.get("caller"), "see tasks");
    const list = (await tasks.list()).map(taskView);
    return sendList(c, list);
  });
  app.delete("/:id", async (c) => {
    requireProviderAdmin(c.get("caller"), "see tasks");
    const id = c.req.param("id");
    const outcome = isUuid(id) ? await tasks.remove(id) : "missing";
    if (outcome === "missing") throw new ControllerError(404, `There is no task ${id}.`);
    if (outcome === "pending") throw new ControllerError(409, "Only a failed or finished task can be removed; a pending one is still running.");
    return c.body(null, 204);
  });
  return app;
}

function taskView(t: TaskRow): TaskInfo {
  return { id: t.id, resource: t.resourceId, operation: t.operation, state: t.state, info: t.info, attempts: t.attempts, retryAt: t.retryAt, lastError: t.lastError, created: t.created };
}
