/**
 * `/aps/2/application` (docs/aps/rest-api.md, "Collections"): what an application instance does
 * with its own resources, calling with its instance certificate (a client made with
 * `nodeDispatcher`). Set `resourceId` on the client to act for one of its resources' owners
 * (`APS-Resource-ID`), and `transactionId` to join the call being handled.
 */
import type { ApplicationService } from "../common/package-info.ts";
import { segment, send, sendJson, type ApsClient } from "./client.ts";

export type { ApplicationService } from "../common/package-info.ts";

/** The services of the calling instance's package, keyed by service id (the platform's form). */
export function listApplicationServices(client: ApsClient): Promise<Record<string, ApplicationService>> {
  return sendJson(client, { method: "GET", path: "/aps/2/application" });
}

/** Registers a resource the application created itself (status `aps:ready` unless `aps.status` says otherwise). */
export function registerResource<T = Record<string, unknown>>(
  client: ApsClient,
  service: string,
  resource: Record<string, unknown>,
): Promise<T> {
  return sendJson(client, { method: "POST", path: `/aps/2/application/${segment(service)}`, json: resource });
}

/** Reads one of the application's resources, encrypted properties included. */
export function getApplicationResource<T = Record<string, unknown>>(
  client: ApsClient,
  service: string,
  id: string,
): Promise<T> {
  return sendJson(client, { method: "GET", path: `/aps/2/application/${segment(service)}/${segment(id)}` });
}

/** Changes one of the application's resources, readonly properties and `aps.status` included. */
export function configureApplicationResource<T = Record<string, unknown>>(
  client: ApsClient,
  service: string,
  id: string,
  changes: Record<string, unknown>,
): Promise<T> {
  return sendJson(client, {
    method: "PUT",
    path: `/aps/2/application/${segment(service)}/${segment(id)}`,
    json: changes,
  });
}

/** Removes a resource without calling the application back. */
export async function unregisterResource(client: ApsClient, service: string, id: string): Promise<void> {
  await send(client, { method: "DELETE", path: `/aps/2/application/${segment(service)}/${segment(id)}` });
}
