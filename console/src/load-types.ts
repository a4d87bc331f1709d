/** Reads every type the controller knows (`/aps/2/types`), for type-catalog.ts to work on. */
import type { TypeInfo } from "../../runtime/common/type-info.ts";
import { getPage } from "./api.ts";
import type { TypeMap } from "./type-catalog.ts";

/** Types per request: the controller answers at most 1000 at a time. */
const PAGE = 1000;

/** Reads every type, page by page. */
export async function loadTypes(): Promise<TypeMap> {
  const types = new Map<string, TypeInfo>();
  for (let start = 0; ; start += PAGE) {
    const page = await getPage<TypeInfo>("/aps/2/types", `limit(${start},${PAGE})`);
    for (const t of page.items) types.set(t.id, t);
    if (page.items.length === 0 || start + page.items.length >= page.range.total) return types;
  }
}
