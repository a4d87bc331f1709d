/**
 * Where on the endpoint a notification goes (docs/platform-forms.md §4 Q1).
 *
 * SPEC 6.2 writes `POST <endpoint>/<service>/events/<subscriber id>/<handler>`. Every connector
 * written for the real platform serves its handler at the handler operation's own path on the
 * subscriber instead, `POST <endpoint>/<service>/<subscriber id><operation path>`: FallBall
 * `/tenant/{id}/onUsersChange` (connector/v1/__init__.py:126), the Connect extension
 * `/globals/{app}/accountDataChange` (api/hub.py:129-132), PHP runtime `@path("/onX")` handlers
 * (platform-forms §2.4); aps-facts §5 says the same of the platform. SPEC 6.1 names the handler
 * as "the custom method of the subscriber's service", and a subscription must name a POST
 * operation of the subscriber (subscription-service.ts), so that path is always known.
 *
 * So the operation path is tried first; the SPEC 6.2 form is the fallback when the endpoint has
 * no route there (a 404, a 405 or a redirect: forward/routed-path.ts), for endpoints written to
 * the spec's form. The connector runtime (runtime/connector/app.ts) serves both. An operation
 * path with parameters cannot be filled from a notification: then only the SPEC form is used.
 */
import type { RegistryType } from "../registry.ts";

/** The paths to try, in order: the operation path (when it can be used), then the SPEC 6.2 form. */
export function handlerPaths(type: RegistryType | undefined, service: string, subscriberId: string, handler: string): string[] {
  const spec = `/${service}/events/${subscriberId}/${encodeURIComponent(handler)}`;
  const op = type?.operations[handler];
  if (!op || op.base || op.static || op.verb !== "POST" || op.path.includes("{")) return [spec];
  const path = op.path.replace(/^\/?/, "/").replace(/\/+$/, "");
  return path === "" ? [spec] : [`/${service}/${subscriberId}${path}`, spec];
}
