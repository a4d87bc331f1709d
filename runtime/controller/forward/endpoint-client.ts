/**
 * Calls an application endpoint (SPEC 4.3, 4.4) over mutual TLS: the controller presents its
 * client certificate, trusts the endpoint's CA, and never sends a token. Unreachable endpoints
 * and time-outs become 502/504 ApsErrors that say which endpoint and why.
 */
import { Pool, type Dispatcher } from "undici";
import { ApsError } from "../errors.ts";

/** What the controller needs to reach one instance. */
export interface EndpointTarget {
  readonly instanceId: string;
  readonly endpoint: string;
  readonly endpointCa?: string | null;
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
}

export function endpointClient(options: EndpointClientOptions) {
  // One keep-alive pool per endpoint (undici: far less per-call work than node:https, and a
  // mutual-TLS handshake per call would cost more than the call).
  const pools = new Map<string, Pool>();
  const poolFor = (target: EndpointTarget) => {
    const origin = new URL(target.endpoint).origin;
    const key = `${origin}|${target.endpointCa ?? ""}`;
    let pool = pools.get(key);
    if (!pool) {
      pool = new Pool(origin, {
        connections: 64,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        connect: { cert: options.cert, key: options.key, ...(target.endpointCa ? { ca: target.endpointCa } : {}) },
      });
      pools.set(key, pool);
    }
    return pool;
  };
  return async function call(target: EndpointTarget, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<EndpointReply> {
    const url = new URL(target.endpoint.replace(/\/$/, "") + path);
    let reply;
    try {
      reply = await poolFor(target).request({ method: method as Dispatcher.HttpMethod, path: url.pathname + url.search, headers, ...(body ? { body } : {}) });
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      if (e.code === "UND_ERR_HEADERS_TIMEOUT" || e.code === "UND_ERR_BODY_TIMEOUT") throw new ApsError(504, `The application endpoint ${target.endpoint} did not answer ${method} ${path} within ${options.timeoutMs / 1000} s.`);
      const cause = (e.cause as NodeJS.ErrnoException | undefined)?.code;
      throw new ApsError(502, `The application endpoint ${target.endpoint} cannot be reached (${cause ?? e.code ?? e.message}).`);
    }
    try {
      const bytes = Buffer.from(await reply.body.arrayBuffer());
      return { status: reply.statusCode, headers: reply.headers, body: bytes };
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      if (e.code === "UND_ERR_BODY_TIMEOUT") throw new ApsError(504, `The application endpoint ${target.endpoint} did not finish its reply to ${method} ${path} within ${options.timeoutMs / 1000} s.`);
      throw new ApsError(502, `The application endpoint ${target.endpoint} broke off its reply: ${e.message}.`);
    }
  };
}

/** The function {@link endpointClient} returns. */
export type EndpointCall = ReturnType<typeof endpointClient>;
