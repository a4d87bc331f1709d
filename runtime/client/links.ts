/** Every link of a resource, both ways (`GET /aps/2/resources/{id}/aps/links`, docs/aps/relations.md). */
import type { LinkInfo } from "../common/link-info.ts";
import { segment, sendJson, type ApsClient } from "./client.ts";

export type { LinkInfo } from "../common/link-info.ts";

export function listLinks(client: ApsClient, id: string): Promise<LinkInfo[]> {
  return sendJson(client, { method: "GET", path: `/aps/2/resources/${segment(id)}/aps/links` });
}
