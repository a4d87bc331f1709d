/**
 * Where a provisioning call goes: `POST <endpoint>/<service>` or `POST <endpoint>/<service>/`.
 *
 * The APS documents write the collection with a trailing slash; the platform's own access log
 * shows it without one (`POST /async/vpses`, https://kb.cloudblue.com/en/124339), and FastAPI
 * connectors route only that form (the Connect extension's `POST /tenant`, `/app`, `/globals`:
 * cloudblue/connect-extension-for-cb-commerce `cbcext/api/tenant.py:47`, `api/app.py:30`,
 * `api/hub.py:33`; `/tenant/` is redirected). Slash-tolerant endpoints (FallBall's
 * `strict_slashes=False`, the aps-gen connector runtime) take both. An endpoint written to the
 * documents may route only `/<service>/` and answer the other with a 404, a 405 or a redirect.
 *
 * So the form without the slash goes first, and the slash form is the fallback (routed-path.ts
 * says when). Which form an instance's endpoint routes is remembered per instance, in this
 * process's memory: the next provisioning goes there first. Forgetting costs one refused call
 * per instance after a restart, so it is not stored. The remembered form is still only the first
 * try: a form that stops being routed (the connector redeployed) falls back to the other one.
 *
 * Every other call to an endpoint (configure, unprovision, Suspendable, custom operations) has
 * one path, written as the documents write it; links and upgrade are not in them (forwarder.ts).
 */
import type { EndpointTarget } from "./endpoint-client.ts";

type Form = "bare" | "slash";

export class ProvisionPaths {
  /** The form each instance's endpoint was last seen routing, by instance id. */
  private readonly routed = new Map<string, Form>();

  /** The paths to try, in order, and whether the first is a form the endpoint is known to route. */
  pathsFor(target: EndpointTarget, service: string): { readonly paths: readonly string[]; readonly known: boolean } {
    const known = this.routed.get(target.instanceId);
    const bare = `/${service}`;
    const slash = `/${service}/`;
    return { paths: known === "slash" ? [slash, bare] : [bare, slash], known: known !== undefined };
  }

  /** The endpoint answered `path` with something other than "not here". */
  routedAt(target: EndpointTarget, path: string): void {
    this.routed.set(target.instanceId, path.endsWith("/") ? "slash" : "bare");
  }
}
