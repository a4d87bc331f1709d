/**
 * Custom operations (SPEC 4.4): on a resource at `/aps/2/resources/<id>/<path>`, and static ones
 * on a type at `/aps/2/static/<type id>/<path>`. The caller needs access to the resource (for a
 * resource's) and to the operation; the path is found by the operation router, parameters are
 * converted and checked, then the call goes to the application and its reply comes back as it is.
 */
import { RoleBit } from "../../common/actor.ts";
import { requireOperation } from "../access/resource-access.ts";
import type { Caller } from "../auth/caller.ts";
import { SERVING_ROLES } from "../auth/roles.ts";
import type { EndpointReply } from "../forward/endpoint-client.ts";
import type { RegistryType } from "../registry.ts";
import { applicationsFor, forwardOrigin } from "../resources/applications.ts";
import type { ResourceContext } from "../resources/resource-context.ts";
import { validatorOf } from "../resources/type-catalog.ts";
import { ControllerError, invalidBody } from "../support/errors.ts";
import { parseRequestJson } from "../support/http-json.ts";
import type { LazyBody } from "../support/request-body.ts";
import { operationRoutes } from "./operation-router.ts";

export class CustomOperations {
  constructor(private readonly ctx: ResourceContext) {}

  /** A custom operation on resource `id`; `rest` is the path below the resource. */
  async onResource(caller: Caller, id: string, method: string, rest: string, rawQuery: string, body: LazyBody | undefined): Promise<EndpointReply> {
    const { type, roles } = await this.ctx.access.visible(caller, id, "retrieve");
    return this.call(caller, type, roles, id, method, rest, rawQuery, body);
  }

  /**
   * A static custom operation (SPEC 4.4 `static`): called on the type rather than on a resource,
   * forwarded to `<endpoint>/<service>/<path>`. The caller acts in its own account, as when it
   * provisions.
   */
  async onType(caller: Caller, typeId: string, method: string, rest: string, rawQuery: string, body: LazyBody | undefined): Promise<EndpointReply> {
    const { catalog } = this.ctx;
    if (!catalog.registry.has(typeId)) await catalog.refresh();
    const type = catalog.registry.get(typeId);
    if (!type) throw new ControllerError(404, `Type ${typeId} is not known to this controller.`);
    if (caller.kind === "application" && caller.instanceId) {
      // Its own type's static operations are the application's; another's are open to it as to the public.
      const own = type.servedBy === "application" && (await applicationsFor(this.ctx.applications, type).targetFor(type)).target.instanceId === caller.instanceId;
      return this.call(caller, type, own ? SERVING_ROLES : RoleBit.public, undefined, method, rest, rawQuery, body);
    }
    if (!caller.accountId) throw new ControllerError(403, "An anonymous token cannot call operations; use a token that names an account.");
    return this.call(caller, type, RoleBit.owner | RoleBit.public, undefined, method, rest, rawQuery, body);
  }

  private async call(caller: Caller, type: RegistryType, roles: number, id: string | undefined, method: string, rest: string, rawQuery: string, lazy: LazyBody | undefined): Promise<EndpointReply> {
    const isStatic = id === undefined;
    // 404 for a path no operation has, 405 for one declared with other verbs (operation-router.ts).
    const match = operationRoutes(type, isStatic).find(type.name, method, rest);
    requireOperation(type, match.name, roles);
    // Read only now: a request for an operation that does not exist or is not allowed never costs its body.
    const bytes = lazy ? await lazy.read() : undefined;
    const body = bytes?.length ? { bytes, contentType: lazy!.contentType } : undefined;
    const query = Object.fromEntries(new URLSearchParams(rawQuery));
    let parsedBody: unknown = undefined;
    if (body && /json/i.test(body.contentType)) parsedBody = parseRequestJson(body.bytes.toString("utf8"));
    else if (body) parsedBody = body.bytes;
    const parse = validatorOf(this.ctx.catalog, type).operations[match.name];
    if (parse) {
      const result = parse({ path: match.params, query, body: parsedBody });
      if (!result.ok) throw invalidBody(result.errors, `The parameters of ${match.name}`);
    }
    const app = applicationsFor(this.ctx.applications, type);
    const { target } = await app.targetFor(type);
    return app.forwarder.custom(target, type, method, isStatic ? match.path : `/${id}${match.path}`, rawQuery, forwardOrigin(caller), body);
  }
}
