/**
 * Forwards base and custom operations to the application instance that serves a type
 * (docs/aps/lifecycle.md, "Base operations"; docs/aps/rest-api.md, "Custom operations") with the
 * headers of docs/aps/rest-api.md, "Calls to applications", and reads its reply as
 * docs/aps/lifecycle.md, "Base operations" says.
 */
import { randomUUID } from "node:crypto";
import { parseJsonText, stringifyJson } from "../../common/json-text.ts";
import { linkRef } from "../../common/link-ref.ts";
import type { EventNotification } from "../../common/event-notification.ts";
import type { ApsProvisionMeta, ApsX509 } from "../../common/types.ts";
import { ControllerError } from "../support/errors.ts";
import type { RegistryType } from "../registry.ts";
import type { RequestScope } from "../observability/request-scope.ts";
import type { EndpointCall, EndpointReply, EndpointTarget } from "./endpoint-client.ts";
import { ProvisionPaths } from "./provision-path.ts";
import { sendToRouted } from "./routed-path.ts";

/** Who a forwarded call is made for. */
export interface ForwardOrigin {
  /** `APS-Identity-ID`: the user behind a token, when there is one. */
  readonly identityId?: string;
  /** `APS-Transaction-ID` to reuse (a sub-request of a running transaction). */
  readonly transactionId?: string;
  /** `APS-Application-ID`: the application instance that made the call (docs/aps/rest-api.md, "Calls to applications"). */
  readonly applicationId?: string;
  /** The request the call is made for: its id goes with the call and on the log line of it. */
  readonly request?: RequestScope;
}

/**
 * What a provisioning call sends: the new resource's id and type in `aps` (and, on the install
 * call of an application root, the instance's credentials), then its properties and links.
 */
export type ProvisionBody = { readonly aps: ApsProvisionMeta & { readonly x509?: ApsX509 } } & {
  readonly [member: string]: unknown;
};

/** What a base operation led to: done, or accepted for later (a 202, docs/aps/lifecycle.md, "Asynchronous operations"). */
export type ForwardOutcome =
  | { readonly kind: "done"; readonly properties: Record<string, unknown> }
  | {
      readonly kind: "accepted";
      readonly properties: Record<string, unknown>;
      readonly info: string;
      readonly retrySeconds: number;
      readonly call: RepeatableCall;
    };

/** A call the task runner repeats with `APS-Request-Phase: async` (same transaction). */
export interface RepeatableCall {
  readonly method: string;
  readonly path: string;
  readonly body?: string;
  readonly transactionId: string;
  readonly identityId?: string;
  readonly applicationId?: string;
}

/** An application's reply that is not a success: passed back to the caller as it came. */
export class ApplicationReplyError extends Error {
  constructor(readonly reply: EndpointReply) {
    super(`the application answered ${reply.status}`);
    this.name = "ApplicationReplyError";
  }
}

export class Forwarder {
  /** Which provisioning path each instance's endpoint routes (provision-path.ts), in this process. */
  private readonly provisionPaths = new ProvisionPaths();

  constructor(
    private readonly call: EndpointCall,
    /** Known once the server listens (the port may be picked by the system). */
    private readonly controllerUri: () => string,
  ) {}

  /**
   * Provision: `POST <endpoint>/<service>`, or `/<service>/` where only that is routed
   * (provision-path.ts). A refused form is not an answer (routed-path.ts): the call goes to the
   * other with the same resource id and transaction, which is safe as the endpoint did nothing.
   */
  async provision(
    target: EndpointTarget,
    type: RegistryType,
    resource: ProvisionBody,
    origin: ForwardOrigin,
  ): Promise<ForwardOutcome> {
    const { paths, known } = this.provisionPaths.pathsFor(target, serviceOf(type));
    const call = { method: "POST", body: stringifyJson(resource), ...this.origin(origin) };
    // A known form's refusal is the application's answer (its route is there); for an unknown
    // endpoint the last form's is, the documents' form (as for notifications, events/handler-path.ts).
    const sent = await sendToRouted(
      paths,
      (path) => this.send(target, { ...call, path }, "sync", origin.request),
      known ? "first" : "last",
    );
    if (sent.routed) this.provisionPaths.routedAt(target, sent.path);
    return this.outcome(target, { ...call, path: sent.path }, sent.reply, [200, 201, 204]);
  }

  /** Configure: `PUT <endpoint>/<service>/<id>` with the changes. */
  configure(
    target: EndpointTarget,
    type: RegistryType,
    id: string,
    changes: Record<string, unknown>,
    origin: ForwardOrigin,
  ): Promise<ForwardOutcome> {
    return this.base(
      target,
      { method: "PUT", path: `/${serviceOf(type)}/${id}`, body: stringifyJson(changes), ...this.origin(origin) },
      [200, 204],
      "sync",
      origin.request,
    );
  }

  /** Unprovision: `DELETE <endpoint>/<service>/<id>`. */
  unprovision(target: EndpointTarget, type: RegistryType, id: string, origin: ForwardOrigin): Promise<ForwardOutcome> {
    return this.base(
      target,
      { method: "DELETE", path: `/${serviceOf(type)}/${id}`, ...this.origin(origin) },
      [200, 204],
      "sync",
      origin.request,
    );
  }

  /**
   * Upgrade: `POST <endpoint>/<root service>/<root id>/upgrade?version=<from>`, the `upgrade`
   * operation of the core Application type (types/core/application.schema), as FallBall routes it
   * (`/app/<id>/upgrade`, connector/v1/__init__.py) and the Connect extension (`/globals/{id}/upgrade`).
   */
  upgrade(
    target: EndpointTarget,
    root: RegistryType,
    rootId: string,
    fromVersion: string,
    origin: ForwardOrigin,
  ): Promise<ForwardOutcome> {
    return this.base(
      target,
      {
        method: "POST",
        path: `/${serviceOf(root)}/${rootId}/upgrade?version=${encodeURIComponent(fromVersion)}`,
        ...this.origin(origin),
      },
      [200, 204],
      "sync",
      origin.request,
    );
  }

  /** The same call again, in the async phase, for the task runner. */
  repeat(target: EndpointTarget, call: RepeatableCall, ok: readonly number[]): Promise<ForwardOutcome> {
    return this.base(target, call, ok, "async");
  }

  private async base(
    target: EndpointTarget,
    call: RepeatableCall,
    ok: readonly number[],
    phase: "sync" | "async" = "sync",
    request?: RequestScope,
  ): Promise<ForwardOutcome> {
    return this.outcome(target, call, await this.send(target, call, phase, request), ok);
  }

  private send(
    target: EndpointTarget,
    call: RepeatableCall,
    phase: "sync" | "async",
    request?: RequestScope,
  ): Promise<EndpointReply> {
    const headers = {
      ...this.headers(
        target,
        {
          transactionId: call.transactionId,
          ...(call.identityId ? { identityId: call.identityId } : {}),
          ...(call.applicationId ? { applicationId: call.applicationId } : {}),
        },
        call.body ? "application/json" : undefined,
      ),
      "APS-Request-Phase": phase,
    };
    // Base operations may be sent twice (see CallSafety): provisioning repeats carry the same
    // resource id and transaction, link changes and the idempotent methods change nothing twice.
    return this.call(target, call.method, call.path, headers, call.body ? Buffer.from(call.body) : undefined, {
      repeatable: true,
      ...(request ? { request } : {}),
    });
  }

  /** What a base operation's reply means; `call` is what was sent (an accepted one is repeated as it is). */
  private outcome(
    target: EndpointTarget,
    call: RepeatableCall,
    reply: EndpointReply,
    ok: readonly number[],
  ): ForwardOutcome {
    if (reply.status === 202) {
      const retry = Number(header(reply, "aps-retry-timeout"));
      return {
        kind: "accepted",
        properties: this.json(reply, target),
        info: header(reply, "aps-info") ?? "",
        retrySeconds: Number.isFinite(retry) && retry >= 0 ? Math.min(retry, 86_400) : 30,
        call,
      };
    }
    if (ok.includes(reply.status)) return { kind: "done", properties: this.json(reply, target) };
    if (isErrorStatus(reply.status)) throw new ApplicationReplyError(reply);
    // 1xx, 3xx, another 2xx (206, 205, 201 to a configure...): not an answer the protocol has for
    // this call, so neither a success nor the application's error to pass on
    // (docs/aps/lifecycle.md, "Base operations").
    throw new ControllerError(
      502,
      `The application at ${target.endpoint} answered ${reply.status} to ${call.method} ${call.path}, which is not an answer the protocol defines for it (${[...ok, 202].join(", ")} or an error status); nothing was stored.`,
    );
  }

  private origin(origin: ForwardOrigin): { transactionId: string; identityId?: string; applicationId?: string } {
    return {
      transactionId: origin.transactionId ?? randomUUID(),
      ...(origin.identityId ? { identityId: origin.identityId } : {}),
      ...(origin.applicationId ? { applicationId: origin.applicationId } : {}),
    };
  }

  /**
   * Tells the application of a new link (`POST <endpoint>/<service>/<id>/<relation>`) or a removed
   * one (`DELETE .../<relation>/<id2>`), docs/aps/relations.md: 200/204 agree, 501 means the
   * application does not track this relation (the link is kept all the same); anything else refuses
   * it.
   */
  async linkChanged(
    target: EndpointTarget,
    type: RegistryType,
    id: string,
    relation: string,
    other: string,
    added: boolean,
    origin: ForwardOrigin,
  ): Promise<void> {
    const call = added
      ? {
          method: "POST",
          path: `/${serviceOf(type)}/${id}/${relation}`,
          body: stringifyJson(linkRef(other)),
          ...this.origin(origin),
        }
      : { method: "DELETE", path: `/${serviceOf(type)}/${id}/${relation}/${other}`, ...this.origin(origin) };
    const outcome = await this.base(target, call, [200, 201, 204, 501], "sync", origin.request);
    if (outcome.kind === "accepted")
      throw new ControllerError(
        502,
        `The application at ${target.endpoint} answered 202 to a link change; links change at once.`,
      );
  }

  /** Suspendable: `PUT <endpoint>/<service>/<id>/disable` or `/enable` (docs/aps/lifecycle.md, "Suspendable types"). */
  async suspend(
    target: EndpointTarget,
    type: RegistryType,
    id: string,
    disable: boolean,
    origin: ForwardOrigin,
  ): Promise<void> {
    const outcome = await this.base(
      target,
      { method: "PUT", path: `/${serviceOf(type)}/${id}/${disable ? "disable" : "enable"}`, ...this.origin(origin) },
      [200, 204],
      "sync",
      origin.request,
    );
    if (outcome.kind === "accepted")
      throw new ControllerError(
        502,
        `The application at ${target.endpoint} answered 202 to ${disable ? "disable" : "enable"}; Suspendable operations must finish at once.`,
      );
  }

  /**
   * A `GET` of the endpoint's root, with the headers of every call: whether the endpoint answers
   * over HTTPS at all (any status counts: an APS endpoint serves its services, not its root).
   */
  probe(target: EndpointTarget): Promise<EndpointReply> {
    return this.call(target, "GET", "/", this.headers(target, {}), undefined, { repeatable: true });
  }

  /** A custom operation; the reply goes back to the caller as the application sent it. */
  async custom(
    target: EndpointTarget,
    type: RegistryType,
    method: string,
    path: string,
    query: string,
    origin: ForwardOrigin,
    body?: { bytes: Buffer; contentType: string },
  ): Promise<EndpointReply> {
    const reply = await this.call(
      target,
      method,
      `/${serviceOf(type)}${path}${query ? `?${query}` : ""}`,
      this.headers(target, origin, body?.contentType),
      body?.bytes,
      origin.request ? { request: origin.request } : {},
    );
    if (isErrorStatus(reply.status)) throw new ApplicationReplyError(reply);
    // A redirect or an informational status would send the caller into the application's own network.
    if (reply.status < 200 || reply.status >= 300)
      throw new ControllerError(
        502,
        `The application at ${target.endpoint} answered ${reply.status} to ${method} ${path}; a custom operation answers a 2xx or an error status.`,
      );
    return reply;
  }

  /**
   * An event notification (docs/aps/events.md, "The notification") to `POST <endpoint><path>`;
   * which path is events/handler-path.ts's. The reply comes back as it is: the deliverer decides
   * what it means.
   */
  notify(target: EndpointTarget, path: string, notification: EventNotification): Promise<EndpointReply> {
    // Notifications are delivered at least once (the deliverer retries), so one may be sent twice.
    return this.call(
      target,
      "POST",
      path,
      this.headers(target, {}, "application/json"),
      Buffer.from(stringifyJson(notification)),
      { repeatable: true },
    );
  }

  private headers(target: EndpointTarget, origin: ForwardOrigin, contentType?: string): Record<string, string> {
    return {
      "APS-Controller-URI": this.controllerUri(),
      "APS-Instance-ID": target.instanceId,
      "APS-Transaction-ID": origin.transactionId ?? randomUUID(),
      "APS-Request-Phase": "sync",
      ...(origin.identityId ? { "APS-Identity-ID": origin.identityId } : {}),
      ...(origin.applicationId ? { "APS-Application-ID": origin.applicationId } : {}),
      ...(contentType ? { "content-type": contentType } : {}),
      accept: "application/json",
    };
  }

  private json(reply: EndpointReply, target: EndpointTarget): Record<string, unknown> {
    if (reply.status === 204 || reply.body.length === 0) return {};
    try {
      const value = parseJsonText(reply.body.toString("utf8"));
      return typeof value === "object" && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : {};
    } catch {
      throw new ControllerError(
        502,
        `The application at ${target.endpoint} answered ${reply.status} with a body that is not JSON.`,
      );
    }
  }
}

/** An error reply of the application (4xx, 5xx), which goes back to the caller as it came. */
function isErrorStatus(status: number): boolean {
  return status >= 400 && status <= 599;
}

function header(reply: EndpointReply, name: string): string | undefined {
  const v = reply.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function serviceOf(type: RegistryType): string {
  if (!type.service)
    throw new ControllerError(
      502,
      `${type.name} names no APP-META.xml service, so the controller does not know where to send it.`,
    );
  return type.service;
}
