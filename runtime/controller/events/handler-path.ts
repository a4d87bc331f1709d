/**
 * Where on the endpoint a notification goes (docs/aps/events.md, "The notification";
 * docs/platform-forms.md §4 Q1).
 *
 * Every connector written for the real platform serves its handler at the handler operation's
 * own path on the subscriber, `POST <endpoint>/<service>/<subscriber id><operation path>`:
 * FallBall `/tenant/{id}/onUsersChange` (connector/v1/__init__.py:126), the Connect extension
 * `/globals/{app}/accountDataChange` (api/hub.py:129-132), PHP runtime `@path("/onX")` handlers
 * (platform-forms §2.4); the platform's event-processing page says it posts there. A
 * subscription names the handler as an operation of the subscriber's type, and it must be a
 * POST operation (subscription-service.ts), so that path is always known.
 *
 * So the operation path is tried first;
 * `POST <endpoint>/<service>/events/<subscriber id>/<handler>` is the fallback when the endpoint has no route there (a 404, a 405 or a redirect:
 * forward/routed-path.ts), for endpoints written to that form. The connector runtime
 * (runtime/connector/app.ts) serves both. An operation path with parameters cannot be filled from a
 * notification: then only the `events/` form is used.
 */
import type { RegistryType } from "../registry.ts";

/** The paths to try, in order: the operation path (when it can be used), then the `events/` form. */
export function handlerPaths(
  type: RegistryType | undefined,
  service: string,
  subscriberId: string,
  handler: string,
): string[] {
  const spec = `/${service}/events/${subscriberId}/${encodeURIComponent(handler)}`;
  const op = type?.operations[handler];
  if (!op || op.base || op.static || op.verb !== "POST" || op.path.includes("{")) return [spec];
  const path = op.path.replace(/^\/?/, "/").replace(/\/+$/, "");
  return path === "" ? [spec] : [`/${service}/${subscriberId}${path}`, spec];
}
