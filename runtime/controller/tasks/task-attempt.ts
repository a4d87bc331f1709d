/**
 * One attempt of an asynchronous operation (docs/aps/lifecycle.md, "Asynchronous operations"), what
 * the task runner runs: repeats the call with `APS-Request-Phase: async`; a success completes the
 * operation, another 202 reschedules it, anything else fails the task and leaves the resource in
 * its in-progress status.
 */
import { ResourceStatus } from "../../common/core-types.ts";
import { CoreEvent } from "../events/core-events.ts";
import { changeEvents, raise } from "../events/raise.ts";
import { ApplicationReplyError, type ForwardOutcome } from "../forward/forwarder.ts";
import type { ResourceContext } from "../resources/resource-context.ts";
import { stringifyJson } from "../../common/json-text.ts";
import { applicationBody } from "../resources/application-body.ts";
import { removalEvents } from "../resources/removal-events.ts";
import { acceptedFromApplication } from "../resources/type-catalog.ts";
import { isDatabaseUnavailable } from "../store/database-unavailable.ts";
import { applyChanges } from "../store/resource-rows.ts";
import type { TaskRow } from "./task-store.ts";

export type TaskAttemptResult = "done" | "rescheduled" | "failed";

export async function attemptTask(ctx: ResourceContext, task: TaskRow): Promise<TaskAttemptResult> {
  const app = ctx.applications!;
  const registry = ctx.catalog.registry;
  const row = await ctx.store.get(task.resourceId);
  const type = row && registry.get(row.typeId);
  const target = await app.targetOf(task.instanceId);
  if (!row || !type || !target) {
    await app.tasks.fail(
      task.id,
      !target ? `instance ${task.instanceId} no longer exists` : `resource ${task.resourceId} no longer exists`,
    );
    return "failed";
  }
  let outcome: ForwardOutcome;
  try {
    const ok = task.operation === "provision" ? [200, 201, 204] : [200, 204];
    // A provisioning or configure is repeated with the resource as it is now, not as it was first
    // sent: what the application or anyone else wrote meanwhile (FallBall's activation sets
    // `status: reprovisioned` through the application's own PUT and waits for it in the
    // repeat, connector/v1/resources/tenant.py:256-268, :354-378). So also after a retry of a
    // failed task (POST /aps/2/tasks/{id}/retry), whose stored body was cleared when it failed.
    const body =
      task.operation === "provision" || task.operation === "configure"
        ? stringifyJson(applicationBody(row, type, ctx.rows.values(row), await ctx.store.linksFrom(row.id)))
        : task.body;
    outcome = await app.forwarder.repeat(
      target,
      {
        method: task.method,
        path: task.path,
        ...(body ? { body } : {}),
        transactionId: task.transactionId,
        ...(task.identityId ? { identityId: task.identityId } : {}),
      },
      ok,
    );
  } catch (error) {
    // Not the application's failure: the task stays pending and is tried again after its lease.
    if (isDatabaseUnavailable(error)) throw error;
    const reason =
      error instanceof ApplicationReplyError
        ? `the application answered ${error.reply.status}: ${error.reply.body.toString("utf8").slice(0, 500)}`
        : (error as Error).message;
    await app.tasks.fail(task.id, reason);
    return "failed";
  }
  const merged = ctx.rows.values(row);
  try {
    applyChanges(merged, acceptedFromApplication(ctx.catalog, type, outcome.properties));
  } catch (error) {
    await app.tasks.fail(task.id, (error as Error).message);
    return "failed";
  }
  const columns = ctx.rows.columns(type.properties, row.id, merged);
  if (outcome.kind === "accepted") {
    // A repeat that returned nothing new changes nothing (no new revision).
    if (Object.keys(outcome.properties).length)
      await ctx.store.update(row.id, row.revision, { ...columns, modified: new Date().toISOString() });
    await app.tasks.reschedule(task.id, outcome.info, outcome.retrySeconds);
    return "rescheduled";
  }
  const removal = task.operation === "unprovision" ? await removalEvents(ctx.store, registry, row) : [];
  await ctx.store.transaction(async (tx) => {
    if (task.operation === "unprovision") await ctx.store.delete(row.id, tx, removal);
    else {
      const events =
        task.operation === "provision"
          ? [raise(registry, CoreEvent.available, row)]
          : changeEvents(registry, row, ctx.rows.values(row), merged);
      await ctx.store.update(
        row.id,
        row.revision,
        { ...columns, modified: new Date().toISOString(), status: ResourceStatus.ready },
        tx,
        events,
      );
    }
    await app.tasks.finish(tx, task.id);
  });
  return "done";
}
