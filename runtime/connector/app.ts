/**
 * The application endpoint: a Hono app that accepts calls only from the controller (its client
 * certificate must chain to the controller CA the endpoint trusts), parses the APS headers into a
 * typed context, dispatches to the vendor's handlers and turns their results into the replies the
 * controller takes (docs/aps/lifecycle.md, "Base operations"). The instance credentials that arrive
 * with the install call (`aps.x509`) are stored and never reach handlers.
 */
import type { TLSSocket } from "node:tls";
import type { HttpBindings } from "@hono/node-server";
import { Hono, type Context } from "hono";
import type { Logger } from "pino";
import { errorBody } from "../common/error-body.ts";
import { parseJsonText, stringifyJson } from "../common/json-text.ts";
import { callContext, type ApsCallContext } from "./context.ts";
import type { CredentialStore } from "./credentials.ts";
import { Accepted, ConnectorError, RawReply, type MaybePromise } from "./replies.ts";
import { isControllerCertificate, presentedCertificate } from "./peer-certificate.ts";
import { defaultConnectorLogger } from "./connector-logger.ts";
import { connectorRequestLog, type RequestLogVariables } from "./request-log.ts";
import { routePattern } from "../common/path-template.ts";
import type { ApsLinkRef, ApsX509 } from "../common/types.ts";

/**
 * What a handler may return: a JSON body, nothing, a 202 (Accepted) or a non-JSON reply
 * (RawReply). A body is any JSON value: a custom operation may answer `true` or a number, and
 * objects include the generated interfaces, which have no index signature.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: `void` lets a handler that returns nothing (typed `() => void`) stand here; `undefined` would not.
export type HandlerResult = object | string | number | bigint | boolean | null | void | undefined;

/** A custom operation of a service (docs/aps/rest-api.md, "Custom operations"). */
export interface OperationHandler {
  readonly verb: "GET" | "POST" | "PUT" | "DELETE";
  /** As declared, e.g. `/logs/{day}`. */
  readonly path: string;
  readonly static?: boolean;
  handle(ctx: ApsCallContext, body: unknown): Promise<HandlerResult> | HandlerResult;
}

/** The handlers of one APP-META.xml service. */
export interface ServiceHandlers {
  provision?(ctx: ApsCallContext, resource: Record<string, unknown>): Promise<HandlerResult> | HandlerResult;
  /** `changes`: the resource as it will be once configured (every property, `aps` and links), as the platform sends it. */
  configure?(ctx: ApsCallContext, changes: Record<string, unknown>): Promise<HandlerResult> | HandlerResult;
  unprovision?(ctx: ApsCallContext): Promise<HandlerResult> | HandlerResult;
  enable?(ctx: ApsCallContext): Promise<HandlerResult> | HandlerResult;
  disable?(ctx: ApsCallContext): Promise<HandlerResult> | HandlerResult;
  readonly operations?: Readonly<Record<string, OperationHandler>>;
  /**
   * Link callbacks per relation (docs/aps/relations.md): told when the controller links (`linked`)
   * or unlinks (`unlinked`) another resource. A relation without one answers 501, which the
   * controller takes as "not tracked here" and keeps the link.
   */
  readonly links?: Readonly<Record<string, LinkCallbacks>>;
}

/** What a service is told of the links of one relation (docs/aps/relations.md); both are optional. */
export interface LinkCallbacks {
  linked?(ctx: ApsCallContext, otherId: string): MaybePromise<void>;
  unlinked?(ctx: ApsCallContext, otherId: string): MaybePromise<void>;
}

/** Options of {@link createConnectorApp}. */
export interface ConnectorOptions {
  readonly services: Readonly<Record<string, ServiceHandlers>>;
  readonly credentials: CredentialStore;
  /**
   * Accept the install call (the provision that carries `aps.x509`) before any controller is
   * trusted, and trust the controller CA it names from then on (what real endpoints do). When
   * false, only a controller CA already in the store is trusted.
   */
  readonly trustOnFirstInstall?: boolean;
  /**
   * Where a line per call goes (request-log.ts); by default JSON lines on stdout at the level of
   * `LOG_LEVEL` (info), as the controller logs, written in blocks (connector-logger.ts).
   * `pino({ level: "silent" })` for none.
   */
  readonly logger?: Logger;
}

type Env = { Bindings: HttpBindings; Variables: RequestLogVariables };

export function createConnectorApp(options: ConnectorOptions): Hono<Env> {
  const app = new Hono<Env>();

  // First, so that refused calls are logged as well.
  app.use("*", connectorRequestLog(options.logger ?? defaultConnectorLogger()));
  app.use("*", async (c, next) => {
    const trusted = await options.credentials.controllerCas();
    if (trusted.length === 0 && options.trustOnFirstInstall !== false) return next();
    const peer = presentedCertificate(c.env?.incoming?.socket as TLSSocket | undefined);
    if (!peer) return c.json(errorBody(401, "Calls to this endpoint need the controller's client certificate."), 401);
    if (!(await isControllerCertificate(peer, trusted)))
      return c.json(
        errorBody(403, "The client certificate was not issued by the controller this endpoint trusts."),
        403,
      );
    return next();
  });

  for (const [service, handlers] of Object.entries(options.services)) {
    // Event notifications come to the handler operation's own path on the subscriber, as a custom
    // operation (the route below; what real connectors serve, events/handler-path.ts in the
    // controller), or in the `events/<subscriber>/<handler>` form here (docs/aps/events.md, "The
    // notification") for endpoints that route nothing there; before custom operations, whose
    // `/{a}/{b}` paths would also match.
    app.post(`/${service}/events/:subscriber/:handler`, async (c) => {
      const name = c.req.param("handler");
      const op = handlers.operations?.[name];
      if (!op || op.static || op.verb !== "POST")
        return reply(
          c,
          new ConnectorError(404, `service ${service} has no POST operation "${name}" to take events`),
          404,
          "event",
        );
      const ctx = callContext((h) => c.req.header(h), {
        resourceId: c.req.param("subscriber"),
        params: {},
        query: {},
        ...logOf(c),
      });
      const body = await readJson(c);
      return reply(c, await run(() => op.handle(ctx, body)), 204, `event handler ${name}`);
    });
    // Custom operations next: their paths are more specific than /:id.
    for (const [name, op] of Object.entries(handlers.operations ?? {})) {
      const path = routePattern(op.path).replace(/^\/?/, "/");
      const route = op.static ? `/${service}${path}` : `/${service}/:aps_resource_id${path}`;
      app.on(op.verb, route, async (c) => {
        const { aps_resource_id, ...params } = c.req.param() as Record<string, string>;
        const ctx = callContext((h) => c.req.header(h), {
          ...(aps_resource_id ? { resourceId: aps_resource_id } : {}),
          params,
          query: c.req.query(),
          ...logOf(c),
        });
        // Inside run(): a body that is not JSON is the caller's 400, like every other problem with it.
        return reply(
          c,
          await run(async () =>
            op.handle(ctx, op.verb === "GET" || op.verb === "DELETE" ? undefined : await operationBody(c)),
          ),
          200,
          `operation ${name}`,
        );
      });
    }
    app.post(`/${service}`, (c) => provision(c, service, handlers, options));
    app.post(`/${service}/`, (c) => provision(c, service, handlers, options));
    app.put(`/${service}/:id/enable`, async (c) =>
      reply(c, await run(() => (handlers.enable ? handlers.enable(ctxOf(c)) : missing("enable"))), 200, "enable"),
    );
    app.put(`/${service}/:id/disable`, async (c) =>
      reply(c, await run(() => (handlers.disable ? handlers.disable(ctxOf(c)) : missing("disable"))), 200, "disable"),
    );
    app.put(`/${service}/:id`, async (c) => {
      const body = (await readJson(c)) as Record<string, unknown>;
      if (await takeCredentials(c, body, options)) return reply(c, undefined, 204, "new credentials");
      // The body is the resource as it will be (the controller's application-body.ts); without a
      // handler there is nothing to add to what the controller stores: 204.
      return reply(
        c,
        await run(() => (handlers.configure ? handlers.configure(ctxOf(c), body) : undefined)),
        200,
        "configure",
      );
    });
    app.delete(`/${service}/:id`, async (c) =>
      reply(c, await run(() => handlers.unprovision?.(ctxOf(c))), 204, "unprovision"),
    );
    app.post(`/${service}/:id/:relation`, async (c) => {
      const relation = c.req.param("relation");
      // The controller sends a link reference (forward/forwarder.ts linkChanged).
      const other = ((await readJson(c)) as Partial<ApsLinkRef>).aps?.id;
      const callback = handlers.links?.[relation]?.linked;
      if (!callback)
        return reply(c, new ConnectorError(501, `links of "${relation}" are not tracked here`), 501, "link");
      return reply(
        c,
        await run(async () => void (await callback(ctxOf(c), String(other)))),
        204,
        `link of ${relation}`,
      );
    });
    app.delete(`/${service}/:id/:relation/:other`, async (c) => {
      const relation = c.req.param("relation");
      const callback = handlers.links?.[relation]?.unlinked;
      if (!callback)
        return reply(c, new ConnectorError(501, `links of "${relation}" are not tracked here`), 501, "unlink");
      return reply(
        c,
        await run(async () => void (await callback(ctxOf(c), c.req.param("other")))),
        204,
        `unlink of ${relation}`,
      );
    });
  }
  app.notFound((c) =>
    c.json(errorBody(404, `This endpoint has no ${c.req.method} ${new URL(c.req.url).pathname}.`), 404),
  );
  return app;
}

async function provision(
  c: Context<Env>,
  service: string,
  handlers: ServiceHandlers,
  options: ConnectorOptions,
): Promise<Response> {
  const body = (await readJson(c)) as Record<string, unknown>;
  const ctx = ctxOf(c);
  // The install call of the application root brings the credentials: keep them, hide them from handlers.
  await takeCredentials(c, body, options);
  return reply(
    c,
    await run(() => (handlers.provision ? handlers.provision(ctx, body) : body)),
    200,
    `provision of ${service}`,
  );
}

/**
 * Stores `aps.x509` (install, or new credentials for an existing instance) and removes it from
 * the body. True when the body carried nothing else (a credentials-only update).
 */
async function takeCredentials(
  c: Context<Env>,
  body: Record<string, unknown>,
  options: ConnectorOptions,
): Promise<boolean> {
  const aps = (body.aps ?? {}) as Record<string, unknown>;
  const x509 = aps.x509 as Partial<ApsX509> | undefined;
  if (!x509?.self || !x509.controller) return false;
  await options.credentials.save(c.req.header("aps-instance-id") ?? "", {
    certAndKey: x509.self,
    controllerCa: x509.controller,
  });
  const { x509: _hidden, ...rest } = aps;
  body.aps = rest;
  return Object.keys(body).length === 1 && Object.keys(rest).length === 0;
}

function ctxOf(c: Context<Env>): ApsCallContext {
  const id = c.req.param("id");
  return callContext((h) => c.req.header(h), { ...(id ? { resourceId: id } : {}), query: c.req.query(), ...logOf(c) });
}

/** The request's id and logger, for the handler's context. */
function logOf(c: Context<Env>): { requestId: string; log: Logger } {
  return { requestId: c.get("requestId"), log: c.get("log") };
}

async function readJson(c: Context<Env>): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  try {
    return parseJsonText(text);
  } catch {
    throw new ConnectorError(400, "The body is not JSON.");
  }
}

/**
 * A custom operation's body as the controller passed it on (it does not look at it): JSON, parsed,
 * for a JSON type and, as FastAPI reads it, when no Content-Type came; the bytes for any other
 * type; nothing for an empty body. The generated wiring then checks it against the declaration.
 */
async function operationBody(c: Context<Env>): Promise<unknown> {
  const type = c.req.header("content-type");
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  if (bytes.length === 0) return undefined;
  if (type !== undefined && !/json/i.test(type)) return bytes;
  try {
    return parseJsonText(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new ConnectorError(400, "The body is not JSON.");
  }
}

async function run(handler: () => Promise<HandlerResult> | HandlerResult): Promise<HandlerResult | ConnectorError> {
  try {
    return await handler();
  } catch (error) {
    if (error instanceof ConnectorError) return error;
    return new ConnectorError(500, `The handler failed: ${(error as Error).message}`);
  }
}

function missing(what: string): never {
  throw new ConnectorError(501, `This connector does not implement ${what}.`);
}

function reply(c: Context<Env>, result: HandlerResult | ConnectorError, emptyStatus: number, what: string): Response {
  const headers: Record<string, string> = {};
  const tx = c.req.header("aps-transaction-id");
  if (tx) headers["APS-Transaction-ID"] = tx;
  if (result instanceof ConnectorError)
    return json(errorBody(result.status, `${what}: ${result.message}`), result.status, headers);
  if (result instanceof Accepted) {
    return json(result.body ?? {}, 202, {
      ...headers,
      "APS-Info": result.info,
      "APS-Retry-Timeout": String(Math.max(0, Math.round(result.retrySeconds))),
    });
  }
  if (result instanceof RawReply) {
    const body = typeof result.body === "string" ? result.body : new Uint8Array(result.body);
    return new Response(body, { status: 200, headers: { ...headers, "content-type": result.contentType } });
  }
  if (result === undefined || result === null)
    return new Response(null, { status: emptyStatus === 204 ? 204 : 204, headers });
  return json(result, 200, headers);
}

function json(value: unknown, status: number, headers: Record<string, string>): Response {
  return new Response(stringifyJson(value), {
    status,
    headers: { ...headers, "content-type": "application/json; charset=utf-8" },
  });
}
