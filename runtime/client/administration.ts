/**
 * The provider's administration API (aps-gen's own: the APS documents name none): application
 * instances (`/aps/2/instances`), asynchronous tasks (`/aps/2/tasks`), the event outbox and its
 * dead letters (`/aps/2/events`) and customer suspension (`/aps/2/customers`). See README.
 */
import type { InstallRequest, InstanceInfo, UninstallReport } from "../common/instance-info.ts";
import type { OutboxNotification, ReplayReport } from "../common/outbox-notification.ts";
import type { SuspensionReport } from "../common/suspension-report.ts";
import type { TaskInfo } from "../common/task-info.ts";
import { segment, send, sendJson, type ApsClient } from "./client.ts";
import { listPage, type Page } from "./pages.ts";

export type { InstallRequest, InstanceInfo, UninstallReport } from "../common/instance-info.ts";
export type { OutboxNotification, ReplayReport } from "../common/outbox-notification.ts";
export type { SuspensionReport } from "../common/suspension-report.ts";
export type { TaskInfo } from "../common/task-info.ts";

/** Installs an instance; `installX` of the generated client of an application root type `X` calls it with `X`'s settings typed. */
export function installInstance<S extends object = Record<string, unknown>>(
  client: ApsClient,
  request: InstallRequest<S>,
): Promise<InstanceInfo> {
  return sendJson(client, { method: "POST", path: "/aps/2/instances", json: request });
}

export function listInstances(client: ApsClient): Promise<Page<InstanceInfo>> {
  return listPage(client, "/aps/2/instances");
}

export function getInstance(client: ApsClient, id: string): Promise<InstanceInfo> {
  return sendJson(client, { method: "GET", path: `/aps/2/instances/${segment(id)}` });
}

/** Issues new credentials (the endpoint receives them; the old certificate stops working). */
export function reissueCredentials(client: ApsClient, id: string): Promise<InstanceInfo> {
  return sendJson(client, { method: "POST", path: `/aps/2/instances/${segment(id)}/credentials` });
}

/** Uninstalls: the instance's resources are unprovisioned first; `force` goes on past a dead endpoint. */
export function uninstallInstance(
  client: ApsClient,
  id: string,
  options: { readonly force?: boolean } = {},
): Promise<UninstallReport> {
  return sendJson(client, {
    method: "DELETE",
    path: `/aps/2/instances/${segment(id)}`,
    ...(options.force ? { query: "force=true" } : {}),
  });
}

export function listTasks(client: ApsClient): Promise<Page<TaskInfo>> {
  return listPage(client, "/aps/2/tasks");
}

/** Puts a failed task back to pending, due now (409 when it is pending or finished). */
export function retryTask(client: ApsClient, id: string): Promise<TaskInfo> {
  return sendJson(client, { method: "POST", path: `/aps/2/tasks/${segment(id)}/retry` });
}

/** Removes a failed or finished task. */
export async function removeTask(client: ApsClient, id: string): Promise<void> {
  await send(client, { method: "DELETE", path: `/aps/2/tasks/${segment(id)}` });
}

/** Notifications given up after their retries (`dead`), or still to be delivered (`pending`). */
export function listNotifications(client: ApsClient, state: "dead" | "pending"): Promise<Page<OutboxNotification>> {
  return listPage(client, `/aps/2/events/${state}`);
}

/** Queues dead notifications again (one, or all without `id`); resolves with how many. */
export async function replayNotifications(client: ApsClient, id?: number): Promise<number> {
  const reply = await sendJson<ReplayReport>(client, {
    method: "POST",
    path: id === undefined ? "/aps/2/events/dead/replay" : `/aps/2/events/dead/${id}/replay`,
  });
  return reply.replayed;
}

/** Drops a dead notification for good. */
export async function discardNotification(client: ApsClient, id: number): Promise<void> {
  await send(client, { method: "DELETE", path: `/aps/2/events/dead/${id}` });
}

/** Disables (`suspend`) or enables (`resume`) every Suspendable resource of an account and the accounts below it. */
export function suspendCustomer(
  client: ApsClient,
  accountId: string,
  action: "suspend" | "resume",
): Promise<SuspensionReport> {
  return sendJson(client, { method: "POST", path: `/aps/2/customers/${segment(accountId)}/${action}` });
}
