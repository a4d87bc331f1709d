/** The UI endpoints (docs/aps/rest-api.md, "Collections"): the UI runtime's version and custom navigation trees. */
import { send, sendJson, type ApsClient } from "./client.ts";

/** The version `/aps/2/ui/runtime/version.html` reports. */
export async function uiRuntimeVersion(client: ApsClient): Promise<string> {
  const html = await (await send(client, { method: "GET", path: "/aps/2/ui/runtime/version.html" })).text();
  return html.replace(/<[^>]*>/g, "").trim();
}

/** Replaces the control panel's navigation tree (provider administrators only); the reply carries the tree's `id`. */
export function postNavigation(
  client: ApsClient,
  tree: Record<string, unknown>,
): Promise<{ readonly id: string } & Record<string, unknown>> {
  return sendJson(client, { method: "POST", path: "/aps/2/navigation", json: tree });
}
