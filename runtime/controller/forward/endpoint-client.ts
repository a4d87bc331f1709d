/**
 * Calls an application endpoint (docs/aps/rest-api.md, "Calls to applications") over mutual TLS:
 * the controller presents its client certificate, trusts the endpoint's CA, and never sends a
 * token; calls to an instance installed with OAuth credentials are signed with them as well (OAuth
 * 1.0a HMAC-SHA1). Unreachable endpoints and time-outs become 502/504 ApsErrors that say which
 * endpoint and why. A call that may be repeated is sent once more, on a new connection, when its
 * connection broke before any reply (see {@link CallSafety}); other calls are not, as the endpoint
 * may have acted on them.
 */
import { Client, Pool, type Dispatcher } from "undici";
import { authorizationHeader } from "../auth/oauth-signature.ts";
import { ControllerError } from "../support/errors.ts";
import type { RequestScope } from "../observability/request-scope.ts";

/** What the controller needs to reach one instance. */
export interface EndpointTarget {
  readonly instanceId: string;
  readonly endpoint: string;
  readonly endpointCa?: string | null;
  /** OAuth 1.0a consumer key and secret of an instance installed with them: every call to it is signed (auth/oauth-signature.ts). */
  readonly oauth?: { readonly key: string; readonly secret: string } | null;
}

/** An endpoint's reply. */
export interface EndpointReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** The controller's client identity and how long to wait. */
export interface EndpointClientOptions {
  readonly cert: string;
  readonly key: string;
  readonly timeoutMs: number;
  /** The largest reply body taken from an application (default {@link DEFAULT_MAX_REPLY_BYTES}). */
  readonly maxReplyBytes?: number;
}

/**
 * An application's reply is held in memory whole (it is stored, or passed to the caller), so its
 * size is bounded like a request's: 32 MiB, the largest package archive the controller takes.
 */
export const DEFAULT_MAX_REPLY_BYTES = 32 * 1024 * 1024;

/** How a call may be treated beyond its HTTP method. */
interface CallSafety {
  /**
   * The call may be sent twice: the receiver recognises the repeat. True for the idempotent methods
   * (GET, HEAD, PUT, DELETE, OPTIONS) without saying so; the forwarder says so for provisioning
   * (the repeat carries the same resource id and APS-Transaction-ID, and applications already get
   * provisioning calls repeated in the async phase, docs/aps/lifecycle.md, "Asynchronous
   * operations"), link changes (adding a link twice adds it once) and event notifications
   * (delivered at least once).
   */
  readonly repeatable?: boolean;
}

/** A call's safety, and the request it is made for (read by forward/observed-endpoint-call.ts for the log). */
export interface CallOptions extends CallSafety {
  readonly request?: RequestScope;
}

const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);

/**
 * Errors that mean the connection broke before any of the reply arrived: typically a pooled
 * keep-alive connection the endpoint closed just as the call went out on it (it answers the
 * bytes with a reset, or its close arrives before a reply).
 */
const BROKEN_BEFORE_REPLY = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);
/** The 502s made of such errors. */
const brokenBeforeReply = new WeakSet<Error>();

export function endpointClient(options: EndpointClientOptions) {
  // One keep-alive pool per endpoint (undici: far less per-call work than node:https, and a
  // mutual-TLS handshake per call would cost more than the call).
  const pools = new Map<string, Pool>();
  const settingsFor = (target: EndpointTarget) => ({
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connect: { cert: options.cert, key: options.key, ...(target.endpointCa ? { ca: target.endpointCa } : {}) },
  });
  const poolFor = (target: EndpointTarget) => {
    const origin = new URL(target.endpoint).origin;
    const key = `${origin}|${target.endpointCa ?? ""}`;
    let pool = pools.get(key);
    if (!pool) {
      pool = new Pool(origin, { connections: 64, ...settingsFor(target) });
      pools.set(key, pool);
    }
    return pool;
  };
  const send = async (
    dispatcher: Dispatcher,
    target: EndpointTarget,
    method: string,
    path: string,
    headers: Record<string, string>,
    body: Buffer | undefined,
  ): Promise<EndpointReply> => {
    const url = new URL(target.endpoint.replace(/\/$/, "") + path);
    // Signed per attempt: a call sent again goes with a nonce of its own.
    // X-Forwarded-Proto/-Host name the URL that was signed: the Connect extension rebuilds the URL
    // it verifies from them and fails without them (cbcext/utils/generic.py:9-15, platform-forms §2.3).
    const signed = target.oauth
      ? {
          ...headers,
          authorization: authorizationHeader(method, url.origin + url.pathname + url.search, target.oauth),
          "x-forwarded-proto": url.protocol.slice(0, -1),
          "x-forwarded-host": url.host,
        }
      : headers;
    let reply: Dispatcher.ResponseData;
    try {
      reply = await dispatcher.request({
        method: method as Dispatcher.HttpMethod,
        path: url.pathname + url.search,
        headers: signed,
        ...(body ? { body } : {}),
      });
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      if (e.code === "UND_ERR_HEADERS_TIMEOUT" || e.code === "UND_ERR_BODY_TIMEOUT")
        throw new ControllerError(
          504,
          `The application endpoint ${target.endpoint} did not answer ${method} ${path} within ${options.timeoutMs / 1000} s.`,
        );
      const cause = (e.cause as NodeJS.ErrnoException | undefined)?.code;
      const unreachable = new ControllerError(
        502,
        `The application endpoint ${target.endpoint} cannot be reached (${cause ?? e.code ?? e.message}).`,
      );
      if (BROKEN_BEFORE_REPLY.has(e.code ?? "") || BROKEN_BEFORE_REPLY.has(cause ?? ""))
        brokenBeforeReply.add(unreachable);
      throw unreachable;
    }
    const limit = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
    const tooLarge = () =>
      new ControllerError(
        502,
        `The application endpoint ${target.endpoint} answered ${method} ${path.split("?")[0]} with more than ${limit} bytes, more than the controller takes.`,
      );
    if (Number(reply.headers["content-length"] ?? 0) > limit) {
      reply.body.destroy();
      throw tooLarge();
    }
    try {
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of reply.body) {
        total += (chunk as Buffer).length;
        if (total > limit) {
          reply.body.destroy();
          throw tooLarge();
        }
        chunks.push(chunk as Buffer);
      }
      return { status: reply.statusCode, headers: reply.headers, body: Buffer.concat(chunks, total) };
    } catch (error) {
      if (error instanceof ControllerError) throw error;
      const e = error as NodeJS.ErrnoException;
      if (e.code === "UND_ERR_BODY_TIMEOUT")
        throw new ControllerError(
          504,
          `The application endpoint ${target.endpoint} did not finish its reply to ${method} ${path} within ${options.timeoutMs / 1000} s.`,
        );
      throw new ControllerError(502, `The application endpoint ${target.endpoint} broke off its reply: ${e.message}.`);
    }
  };
  return async function call(
    target: EndpointTarget,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: Buffer,
    safety: CallOptions = {},
  ): Promise<EndpointReply> {
    try {
      return await send(poolFor(target), target, method, path, headers, body);
    } catch (error) {
      // Once, and on a connection of its own (another pooled one may be just as stale), a call
      // that may be repeated and whose connection broke before a byte of the reply came back.
      const repeatable = safety.repeatable === true || IDEMPOTENT.has(method.toUpperCase());
      if (!repeatable || !brokenBeforeReply.has(error as Error)) throw error;
      const fresh = new Client(new URL(target.endpoint).origin, settingsFor(target));
      try {
        return await send(fresh, target, method, path, headers, body);
      } finally {
        void fresh.close().catch(() => undefined);
      }
    }
  };
}

/** The function {@link endpointClient} returns. */
export type EndpointCall = ReturnType<typeof endpointClient>;
