/**
 * `Content-Range` of list replies (docs/aps/rest-api.md, "Lists and Content-Range"):
 * `items 0-9/100`, or a star for the range of an empty page. The controller writes it and clients
 * read it with the two functions here.
 */

/** The page a list reply holds. */
export interface ContentRange {
  /** Index of the first item of the page; undefined for an empty page. */
  readonly first?: number;
  readonly last?: number;
  /** How many items match in all. */
  readonly total: number;
}

/** `items FIRST-LAST/TOTAL` for a page of `count` items from `start`; an empty page has `*` for FIRST-LAST. */
export function contentRangeHeader(start: number, count: number, total: number): string {
  return count > 0 ? `items ${start}-${start + count - 1}/${total}` : `items */${total}`;
}

/** Parses a `Content-Range` header; undefined when it is absent or not of the items kind. */
export function parseContentRange(header: string | null): ContentRange | undefined {
  const m = header ? /^items\s+(?:(\d+)-(\d+)|\*)\/(\d+)$/.exec(header.trim()) : null;
  if (!m) return undefined;
  return m[1] === undefined
    ? { total: Number(m[3]) }
    : { first: Number(m[1]), last: Number(m[2]), total: Number(m[3]) };
}
