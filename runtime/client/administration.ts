/**
 * The provider's administration API (aps-gen's own: the spec names none): application
 * instances (`/aps/2/instances`), asynchronous tasks (`/aps/2/tasks`), the event outbox and its
 * dead letters (`/aps/2/events`) and customer suspension (`/aps/2/customers`). See README.
 */
import { segment, send, sendJson, type ApsClient } from "./client.ts";
import { listPage, type Page } from "./pages.ts";

/** An installed application instance. */
export interface InstanceInfo {
  readonly id: string;
  readonly package: string;
  readonly endpoint: string;
  readonly rootService: string;
  readonly rootResource: string;
  readonly status: string;
  readonly created: string;
  readonly href: string;
}

/**
 * What installing takes: the package, the endpoint URL, the CA of the endpoint's certificate and
 * the root resource's settings. `S` types the settings (generated clients pass the application
 * root's `XSettings`); they are required when `S` has a required property, as the controller
 * refuses the installation without it.
 */
export type InstallRequest<S extends object = Record<string, unknown>> = {
  readonly package: string;
  readonly endpoint: string;
  readonly endpointCa?: string;
} & ({} extends S ? { readonly settings?: S } : { readonly settings: S });

/** Installs an instance; `installX` of the generated client of an application root type `X` calls it with `X`'s settings typed. */
export function installInstance<S extends object = Record<string, unknown>>(client: ApsClient, request: InstallRequest<S>): Promise<InstanceInfo> {
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
export function uninstallInstance(client: ApsClient, id: string, options: { readonly force?: boolean } = {}): Promise<{ readonly removed: number; readonly endpointErrors: readonly string[] }> {
  return sendJson(client, { method: "DELETE", path: `/aps/2/instances/${segment(id)}`, ...(options.force ? { query: "force=true" } : {}) });
}

/** An asynchronous operation (SPEC 3) with its APS-Info, attempts and last error. */
export interface TaskInfo {
  readonly id: string;
  readonly resource: string;
  readonly operation: string;
  readonly state: string;
  readonly info: string | null;
  readonly attempts: number;
  readonly retryAt: string;
  readonly lastError: string | null;
  readonly created: string;
}

export function listTasks(client: ApsClient): Promise<Page<TaskInfo>> {
  return listPage(client, "/aps/2/tasks");
}

/** Removes a failed or finished task. */
export async function removeTask(client: ApsClient, id: string): Promise<void> {
  await send(client, { method: "DELETE", path: `/aps/2/tasks/${segment(id)}` });
}

/** A notification in the outbox. */
export interface OutboxNotification {
  readonly id: number;
  readonly serial: number | null;
  readonly subscription: string;
  readonly subscriber: string;
  readonly event: string;
  readonly time: string;
  readonly source: { readonly id: string; readonly type: string };
  readonly state: string;
  readonly attempts: number;
  readonly nextAt: string;
  readonly lastError: string | null;
}

/** Notifications given up after their retries (`dead`), or still to be delivered (`pending`). */
export function listNotifications(client: ApsClient, state: "dead" | "pending"): Promise<Page<OutboxNotification>> {
  return listPage(client, `/aps/2/events/${state}`);
}

/** Queues dead notifications again (one, or all without `id`); resolves with how many. */
export async function replayNotifications(client: ApsClient, id?: number): Promise<number> {
  const reply = await sendJson<{ replayed: number }>(client, { method: "POST", path: id === undefined ? "/aps/2/events/dead/replay" : `/aps/2/events/dead/${id}/replay` });
  return reply.replayed;
}

/** Drops a dead notification for good. */
export async function discardNotification(client: ApsClient, id: number): Promise<void> {
  await send(client, { method: "DELETE", path: `/aps/2/events/dead/${id}` });
}

/** What suspending or resuming a customer did. */
export interface SuspensionReport {
  readonly changed: readonly string[];
  readonly unchanged: number;
  readonly failed: readonly { readonly id: string; readonly error: string }[];
}

/** Disables (`suspend`) or enables (`resume`) every Suspendable resource of an account and the accounts below it. */
export function suspendCustomer(client: ApsClient, accountId: string, action: "suspend" | "resume"): Promise<SuspensionReport> {
  return sendJson(client, { method: "POST", path: `/aps/2/customers/${segment(accountId)}/${action}` });
}
