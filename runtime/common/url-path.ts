/**
 * The path of a request URL (`https://host:port/path?query`) as the request line gave it, cut from
 * the text: what the request logs of the controller and the connector write per request, where a
 * `new URL()` per request was a visible share of its cost (docs/performance.md). Unlike
 * `URL.pathname` it does not normalise dot segments or percent-encoding, which a log line does not need.
 */
export function urlPath(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}
