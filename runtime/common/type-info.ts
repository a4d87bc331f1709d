/** A type as `/aps/2/types` describes it (docs/aps/rest-api.md, "Collections"; docs/aps/types.md): its APS JSON declaration as written, own members only, with `aps.href` where it is served. */
export interface TypeInfo {
  readonly aps: { readonly id: string; readonly href: string };
  readonly id: string;
  readonly name: string;
  readonly apsVersion: string;
  /** The types it implements directly, as declared (their own documents name theirs). */
  readonly implements?: readonly string[];
  readonly properties?: Record<string, unknown>;
  readonly relations?: Record<string, unknown>;
  readonly operations?: Record<string, unknown>;
  readonly structures?: Record<string, unknown>;
}
