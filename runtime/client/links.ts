/** Every link of a resource, both ways (`GET /aps/2/resources/{id}/aps/links`, aps-facts 3). */
import { segment, sendJson, type ApsClient } from "./client.ts";

/** One link: the relation, its kind, and the resource at the other end. */
export interface LinkInfo {
  readonly relation: string;
  readonly kind: "strong" | "weak" | "collection";
  /** `out`: the resource's own relation; `in`: another resource's relation to it. */
  readonly direction: "out" | "in";
  readonly id: string;
  readonly href: string;
}

export function listLinks(client: ApsClient, id: string): Promise<LinkInfo[]> {
  return sendJson(client, { method: "GET", path: `/aps/2/resources/${segment(id)}/aps/links` });
}
