/**
 * Lists with `Content-Range` (docs/aps/rest-api.md, "Lists and Content-Range"): one page with its
 * range, or every page in turn as an async iterator (each page one request, `limit(start,count)`
 * added to the query).
 */
import { send, type ApsClient } from "./client.ts";
import { parseContentRange, type ContentRange } from "./content-range.ts";
import { parseJson } from "./json.ts";

/** One page of a list. */
export interface Page<T> {
  readonly items: T[];
  readonly range: ContentRange;
}

/** Reads one page: GET `path` with the RQL `query` as it is. */
export async function listPage<T>(client: ApsClient, path: string, query = ""): Promise<Page<T>> {
  const reply = await send(client, { method: "GET", path, ...(query ? { query } : {}) });
  const items = parseJson(await reply.text()) as T[];
  return {
    items,
    range: parseContentRange(reply.headers.get("content-range")) ?? {
      ...(items.length ? { first: 0, last: items.length - 1 } : {}),
      total: items.length,
    },
  };
}

/** Every page of a list, `pageSize` items each, until the total that Content-Range names is reached. */
export async function* listPages<T>(
  client: ApsClient,
  path: string,
  query = "",
  pageSize = 100,
): AsyncGenerator<T[], void, undefined> {
  for (let start = 0; ; ) {
    const page = await listPage<T>(client, path, [query, `limit(${start},${pageSize})`].filter(Boolean).join("&"));
    if (page.items.length === 0) return;
    yield page.items;
    start += page.items.length;
    if (start >= page.range.total) return;
  }
}
