/**
 * Custom operations (docs/aps/rest-api.md, "Custom operations"): on a resource at
 * `/aps/2/resources/<id>/<path>`, and static ones on a type at `/aps/2/static/<type id>/<path>`.
 * The caller needs access to the resource (for a resource's) and to the operation; the path is
 * found by the operation router, path and query parameters are converted and checked, then the call
 * goes to the application with its body as it came, and the application's reply comes back as it
 * is.
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
import type { LazyBody } from "../support/request-body.ts";
import type { OperationInput, OperationParams } from "../../common/type-validator.ts";
import { operationRoutes } from "./operation-router.ts";

export class CustomOperations {
  constructor(private readonly ctx: ResourceContext) {}

  /** A custom operation on resource `id`; `rest` is the path below the resource. */
  async onResource(
    caller: Caller,
    id: string,
    method: string,
    rest: string,
    rawQuery: string,
    body: LazyBody | undefined,
  ): Promise<EndpointReply> {
    const { type, roles } = await this.ctx.access.visible(caller, id, "retrieve");
    return this.call(caller, type, roles, id, method, rest, rawQuery, body);
  }

  /**
   * A static custom operation (`static`): called on the type rather than on a resource,
   * forwarded to `<endpoint>/<service>/<path>`. The caller acts in its own account, as when it
   * provisions.
   */
  async onType(
    caller: Caller,
    typeId: string,
    method: string,
    rest: string,
    rawQuery: string,
    body: LazyBody | undefined,
  ): Promise<EndpointReply> {
    const { catalog } = this.ctx;
    if (!catalog.registry.has(typeId)) await catalog.refresh();
    const type = catalog.registry.get(typeId);
    if (!type) throw new ControllerError(404, `Type ${typeId} is not known to this controller.`);
    if (caller.kind === "application" && caller.instanceId) {
      // Its own type's static operations are the application's; another's are open to it as to the public.
      const own =
        type.servedBy === "application" &&
        (await applicationsFor(this.ctx.applications, type).targetFor(type)).target.instanceId === caller.instanceId;
      return this.call(caller, type, own ? SERVING_ROLES : RoleBit.public, undefined, method, rest, rawQuery, body);
    }
    if (!caller.accountId)
      throw new ControllerError(403, "An anonymous token cannot call operations; use a token that names an account.");
    return this.call(caller, type, RoleBit.owner | RoleBit.public, undefined, method, rest, rawQuery, body);
  }

  private async call(
    caller: Caller,
    type: RegistryType,
    roles: number,
    id: string | undefined,
    method: string,
    rest: string,
    rawQuery: string,
    lazy: LazyBody | undefined,
  ): Promise<EndpointReply> {
    const isStatic = id === undefined;
    // 404 for a path no operation has, 405 for one declared with other verbs (operation-router.ts).
    const match = operationRoutes(type, isStatic).find(type.name, method, rest);
    requireOperation(type, match.name, roles);
    checkPathAndQuery(validatorOf(this.ctx.catalog, type).operations[match.name], match.name, match.params, rawQuery);
    // Read only now: a request for an operation that does not exist or is not allowed never costs its body.
    // The body is the application's: sent on as it came (only its size is limited, request-body.ts).
    const bytes = lazy ? await lazy.read() : undefined;
    // No Content-Type sent, none sent on ("" adds no header, forwarder.ts headers()): the application
    // reads it as it would from any client (FastAPI, for one, reads JSON then).
    const body = bytes?.length ? { bytes, contentType: lazy!.contentType ?? "" } : undefined;
    const app = applicationsFor(this.ctx.applications, type);
    const { target } = await app.targetFor(type);
    return app.forwarder.custom(
      target,
      type,
      method,
      isStatic ? match.path : `/${id}${match.path}`,
      rawQuery,
      forwardOrigin(caller),
      body,
    );
  }
}

/**
 * Path and query values converted and checked as declared: they name what the call is about and
 * are the controller's to refuse (400, nothing sent). The body is not looked at: the controller
 * only proxies a custom operation, so a body the declaration does not describe, or one that is not
 * JSON, goes to the application, whose generated connector checks it (runtime/connector/replies.ts
 * parsedParams) and answers for it.
 */
function checkPathAndQuery(
  parse: ((input: OperationInput) => OperationParams) | undefined,
  name: string,
  path: Record<string, string>,
  rawQuery: string,
): void {
  if (!parse) return;
  const result = parse({ path, query: Object.fromEntries(new URLSearchParams(rawQuery)) });
  // Without a body the parser reports a required one as missing: that, like every /body error, is the application's.
  const errors = result.ok
    ? []
    : result.errors.filter((e) => e.path.startsWith("/path/") || e.path.startsWith("/query/"));
  if (errors.length) throw invalidBody(errors, `The parameters of ${name}`);
}
