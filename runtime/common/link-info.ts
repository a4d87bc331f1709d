/** One entry of `GET /aps/2/resources/{id}/aps/links` (docs/aps/relations.md): every link of a resource, both ways. */
import type { LinkKind } from "./types.ts";

/** One link: the relation, its kind, and the resource at the other end. */
export interface LinkInfo {
  readonly relation: string;
  readonly kind: LinkKind;
  /** `out`: the resource's own relation; `in`: another resource's relation to it. */
  readonly direction: "out" | "in";
  readonly id: string;
  readonly href: string;
}
