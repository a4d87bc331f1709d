/**
 * Forwards base and custom operations to the application instance that serves a type
 * (SPEC 4.3, 4.4) with the headers of SPEC 4.7, and reads its reply per aps-facts 4.
 */
import { randomUUID } from "node:crypto";
import { parseJsonText, stringifyJson } from "../../common/json-text.ts";
import { ApsError } from "../errors.ts";
import type { RegistryType } from "../registry.ts";
import type { EndpointCall, EndpointReply, EndpointTarget } from "./endpoint-client.ts";

/** Who a forwarded call is made for. */
export interface ForwardOrigin {
  /** `APS-Identity-ID`: the user behind a token, when there is one. */
  readonly identityId?: string;
  /** `APS-Transaction-ID` to reuse (a sub-request of a running transaction). */
  readonly transactionId?: string;
}

/** An application's reply that is not a success: passed back to the caller as it came. */
export class ApplicationReplyError extends Error {
  constructor(readonly reply: EndpointReply) {
    super(`the application answered ${reply.status}`);
    this.name = "ApplicationReplyError";
  }
}

export class Forwarder {
  constructor(
    private readonly call: EndpointCall,
    /** Known once the server listens (the port may be picked by the system). */
    private readonly controllerUri: () => string,
  ) {}

  /** Provision: `POST <endpoint>/<service>/` with the new resource; the properties the application returns. */
  async provision(target: EndpointTarget, type: RegistryType, resource: Record<string, unknown>, origin: ForwardOrigin): Promise<Record<string, unknown>> {
    const reply = await this.send(target, "POST", `/${serviceOf(type)}/`, origin, resource);
    return this.propertiesOf(reply, [200, 201, 204], target);
  }

  /** Configure: `PUT <endpoint>/<service>/<id>` with the changes. */
  async configure(target: EndpointTarget, type: RegistryType, id: string, changes: Record<string, unknown>, origin: ForwardOrigin): Promise<Record<string, unknown>> {
    const reply = await this.send(target, "PUT", `/${serviceOf(type)}/${id}`, origin, changes);
    return this.propertiesOf(reply, [200, 204], target);
  }

  /** Unprovision: `DELETE <endpoint>/<service>/<id>`. */
  async unprovision(target: EndpointTarget, type: RegistryType, id: string, origin: ForwardOrigin): Promise<void> {
    const reply = await this.send(target, "DELETE", `/${serviceOf(type)}/${id}`, origin);
    this.propertiesOf(reply, [200, 204], target);
  }

  /** Suspendable: `PUT <endpoint>/<service>/<id>/disable` or `/enable` (SPEC 4.5). */
  async suspend(target: EndpointTarget, type: RegistryType, id: string, disable: boolean, origin: ForwardOrigin): Promise<void> {
    const reply = await this.send(target, "PUT", `/${serviceOf(type)}/${id}/${disable ? "disable" : "enable"}`, origin);
    this.propertiesOf(reply, [200, 204], target);
  }

  /** A custom operation; the reply goes back to the caller as the application sent it. */
  async custom(target: EndpointTarget, type: RegistryType, method: string, path: string, query: string, origin: ForwardOrigin, body?: { bytes: Buffer; contentType: string }): Promise<EndpointReply> {
    const reply = await this.call(target, method, `/${serviceOf(type)}${path}${query ? `?${query}` : ""}`, this.headers(target, origin, body?.contentType), body?.bytes);
    if (reply.status >= 300) throw new ApplicationReplyError(reply);
    return reply;
  }

  private send(target: EndpointTarget, method: string, path: string, origin: ForwardOrigin, body?: Record<string, unknown>): Promise<EndpointReply> {
    return this.call(target, method, path, this.headers(target, origin, body ? "application/json" : undefined), body ? Buffer.from(stringifyJson(body)) : undefined);
  }

  private headers(target: EndpointTarget, origin: ForwardOrigin, contentType?: string): Record<string, string> {
    return {
      "APS-Controller-URI": this.controllerUri(),
      "APS-Instance-ID": target.instanceId,
      "APS-Transaction-ID": origin.transactionId ?? randomUUID(),
      "APS-Request-Phase": "sync",
      ...(origin.identityId ? { "APS-Identity-ID": origin.identityId } : {}),
      ...(contentType ? { "content-type": contentType } : {}),
      accept: "application/json",
    };
  }

  private propertiesOf(reply: EndpointReply, ok: readonly number[], target: EndpointTarget): Record<string, unknown> {
    if (reply.status === 202) throw new ApsError(502, `The application at ${target.endpoint} answered 202 (asynchronous); this controller does not run asynchronous operations yet.`);
    if (!ok.includes(reply.status)) throw new ApplicationReplyError(reply);
    if (reply.status === 204 || reply.body.length === 0) return {};
    try {
      const value = parseJsonText(reply.body.toString("utf8"));
      return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    } catch {
      throw new ApsError(502, `The application at ${target.endpoint} answered ${reply.status} with a body that is not JSON.`);
    }
  }
}

function serviceOf(type: RegistryType): string {
  if (!type.service) throw new ApsError(502, `${type.name} names no APP-META.xml service, so the controller does not know where to send it.`);
  return type.service;
}
