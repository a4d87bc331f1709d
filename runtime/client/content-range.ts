/** `Content-Range` of list replies (SPEC 4.6): `items 0-9/100`, or a star for the range of an empty page. */
export interface ContentRange {
  /** Index of the first item of the page; undefined for an empty page. */
  readonly first?: number;
  readonly last?: number;
  /** How many items match in all. */
  readonly total: number;
}

/** Parses a `Content-Range` header; undefined when it is absent or not of the items kind. */
export function parseContentRange(header: string | null): ContentRange | undefined {
  const m = header ? /^items\s+(?:(\d+)-(\d+)|\*)\/(\d+)$/.exec(header.trim()) : null;
  if (!m) return undefined;
  return m[1] === undefined ? { total: Number(m[3]) } : { first: Number(m[1]), last: Number(m[2]), total: Number(m[3]) };
}
