/**
 * The one place where the controller tidies a request path before routing it: repeated slashes are
 * one (apsconnect-cli asks for `//aps/2/resources/{id}`, docs/platform-forms.md §1.1, hub.py:197)
 * and a trailing slash is dropped (the APS pages write `/aps/2/resources/`, docs/aps/rest-api.md,
 * "Collections"; dojo stores add `/` to their target, platform-forms §1.7). Hono routes on what
 * `controllerPath` returns.
 */
import { getPath } from "hono/utils/url";

/** `path` with runs of `/` made one and no trailing `/` (the root stays `/`). */
export function tidyPath(path: string): string {
  const single = path.includes("//") ? path.replace(/\/{2,}/g, "/") : path;
  return single.length > 1 && single.endsWith("/") ? single.slice(0, -1) : single;
}

/** Hono's `getPath` (which also decodes the path once) followed by {@link tidyPath}. */
export function controllerPath(request: Request): string {
  return tidyPath(getPath(request));
}
