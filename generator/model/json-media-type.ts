/**
 * Whether a media type names JSON: `application/json`, `text/json` (what `aps build` writes for
 * `@return(T, text/json)`, 49 of 51 real PHP returns) or any `<x>/<y>+json` (RFC 6839), in any
 * case and with or without parameters such as `; charset=utf-8`.
 *
 * A `type` already means a JSON value, so a JSON `contentType` beside it says nothing new; the
 * model keeps only the `type` and remembers the content type for a warning (APS098).
 */
export function isJsonMediaType(mediaType: string): boolean {
  const essence = mediaType.split(";", 1)[0]!.trim().toLowerCase();
  return (
    essence === "application/json" ||
    essence === "text/json" ||
    /^[a-z0-9!#$&^_.-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(essence)
  );
}
