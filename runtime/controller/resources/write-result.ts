/** What a write (provision, configure) answers. */
import type { ApsResource } from "../../common/types.ts";

/** A write the application accepted for later (202): the caller gets 202 and the resource in progress. */
export interface WriteResult {
  readonly resource: ApsResource;
  readonly accepted?: { readonly info: string; readonly retrySeconds: number };
}
