/**
 * The `Range: items=<first>-<last>` request header that dojo `JsonRest` stores (and so
 * `aps/ResourceStore`) send for a page (dojo store/JsonRest.js:171-218; docs/platform-forms.md
 * §1.7), read as `limit(<first>,<count>)`. An explicit `limit(...)` in the query wins
 * (docs/aps/rest-api.md, "Lists and Content-Range").
 */

/** The RQL query with the page the Range header asks for, when the query names none. */
export function withRangeHeader(query: string, range: string | undefined): string {
  const match = range?.trim().match(/^items=(\d+)-(\d*)$/);
  if (!match || /(^|[,(&])limit\(/.test(decodeURIComponent(safe(query)))) return query;
  const first = Number(match[1]);
  // An open end (`items=10-`) means "as many as a page holds": limit(start) alone, the page size caps it.
  const count = match[2] === "" ? undefined : Number(match[2]) - first + 1;
  if (!Number.isSafeInteger(first) || (count !== undefined && (!Number.isSafeInteger(count) || count < 1)))
    return query;
  const limit = count === undefined ? `limit(${first})` : `limit(${first},${count})`;
  return query ? `${query},${limit}` : limit;
}

function safe(text: string): string {
  try {
    decodeURIComponent(text);
    return text;
  } catch {
    return text.replace(/%/g, "%25");
  }
}
