/** `/aps/2/tasks` (provider administrators): asynchronous operations, their APS-Info, attempts and last error; a failed one can be retried. */
import { Hono } from "hono";
import type { TaskInfo } from "../../common/task-info.ts";
import { requireProviderAdmin } from "../auth/caller.ts";
import type { ControllerEnv } from "../context.ts";
import { ControllerError } from "../support/errors.ts";
import { sendJson, sendList } from "../support/http-json.ts";
import type { TaskRow, TaskStore } from "../tasks/task-store.ts";
import { isUuid } from "../support/uuid.ts";

export function taskRoutes(tasks: TaskStore): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  app.get("/", async (c) => {
    requireProviderAdmin(c.get("caller"), "see tasks");
    const list = (await tasks.list()).map(taskView);
    return sendList(c, list);
  });
  // A failed task back to pending, due now: 200 with the task; 409 when it is pending or done.
  app.post("/:id/retry", async (c) => {
    requireProviderAdmin(c.get("caller"), "retry tasks");
    const id = c.req.param("id");
    const result = isUuid(id) ? await tasks.retry(id) : { outcome: "missing" as const };
    if (result.outcome === "retried") return sendJson(c, taskView(result.task));
    if (result.outcome === "missing") throw new ControllerError(404, `There is no task ${id}.`);
    throw new ControllerError(
      409,
      result.outcome === "pending"
        ? "The task is still pending: it is retried on its own; only a failed task can be retried."
        : "The task has finished: there is nothing to retry; only a failed task can be retried.",
    );
  });
  app.delete("/:id", async (c) => {
    requireProviderAdmin(c.get("caller"), "see tasks");
    const id = c.req.param("id");
    const outcome = isUuid(id) ? await tasks.remove(id) : "missing";
    if (outcome === "missing") throw new ControllerError(404, `There is no task ${id}.`);
    if (outcome === "pending")
      throw new ControllerError(409, "Only a failed or finished task can be removed; a pending one is still running.");
    return c.body(null, 204);
  });
  return app;
}

function taskView(t: TaskRow): TaskInfo {
  return {
    id: t.id,
    resource: t.resourceId,
    operation: t.operation,
    state: t.state,
    info: t.info,
    attempts: t.attempts,
    // ISO 8601 as every other time the API answers (the columns read back in PostgreSQL's own text form).
    retryAt: new Date(t.retryAt).toISOString(),
    lastError: t.lastError,
    created: new Date(t.created).toISOString(),
  };
}
