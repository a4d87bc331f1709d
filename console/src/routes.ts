/**
 * The console's pages as hash routes (`#/types/<encoded type id>`): the page is in the fragment,
 * which a browser never sends to the server, so one index.html serves every page. {@link href}
 * writes them, {@link parseRoute} reads them; pages link with `href.*`, never by hand.
 */

/** A page and what it shows. */
export type Route =
  | { readonly page: "overview" }
  | { readonly page: "types" }
  | { readonly page: "type"; readonly typeId: string }
  | { readonly page: "graph" }
  /** `typeId` is "" when no type is chosen yet (`#/resources`). */
  | { readonly page: "resources"; readonly typeId: string; readonly query: string }
  | { readonly page: "resource"; readonly id: string }
  | { readonly page: "provision"; readonly typeId: string }
  | { readonly page: "applications" }
  | { readonly page: "activity" }
  | { readonly page: "missing"; readonly hash: string };

/** The hash of each page. */
export const href = {
  overview: (): string => "#/",
  types: (): string => "#/types",
  type: (typeId: string): string => `#/types/${encodeURIComponent(typeId)}`,
  graph: (): string => "#/graph",
  /** Resources of a type, filtered with RQL; `#/resources` alone (no type) lets one choose the type. */
  resources: (typeId = "", query = ""): string =>
    `#/resources${typeId ? `/${encodeURIComponent(typeId)}` : ""}${query ? `?q=${encodeURIComponent(query)}` : ""}`,
  resource: (id: string): string => `#/resource/${encodeURIComponent(id)}`,
  provision: (typeId: string): string => `#/provision/${encodeURIComponent(typeId)}`,
  applications: (): string => "#/applications",
  activity: (): string => "#/activity",
};

/** The route of a location hash (`#/types/...`); an unknown or malformed one is `missing`. */
export function parseRoute(hash: string): Route {
  const text = hash.replace(/^#/, "");
  const at = text.indexOf("?");
  const path = at < 0 ? text : text.slice(0, at);
  const params = new URLSearchParams(at < 0 ? "" : text.slice(at + 1));
  const parts = path.split("/").filter(Boolean);
  let decoded: string[];
  try {
    decoded = parts.map((p) => decodeURIComponent(p));
  } catch {
    return { page: "missing", hash };
  }
  const [first, second, ...more] = decoded;
  if (more.length > 0) return { page: "missing", hash };
  if (first === undefined) return { page: "overview" };
  if (second === undefined) {
    if (first === "types") return { page: "types" };
    if (first === "graph") return { page: "graph" };
    if (first === "applications") return { page: "applications" };
    if (first === "activity") return { page: "activity" };
    if (first === "resources") return { page: "resources", typeId: "", query: params.get("q") ?? "" };
    return { page: "missing", hash };
  }
  if (first === "types") return { page: "type", typeId: second };
  if (first === "resources") return { page: "resources", typeId: second, query: params.get("q") ?? "" };
  if (first === "resource") return { page: "resource", id: second };
  if (first === "provision") return { page: "provision", typeId: second };
  return { page: "missing", hash };
}
