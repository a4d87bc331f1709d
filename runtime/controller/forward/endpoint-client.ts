/**
 * Calls an application endpoint (SPEC 4.3, 4.4) over mutual TLS: the controller presents its
 * client certificate, trusts the endpoint's CA, and never sends a token. Unreachable endpoints
 * and time-outs become 502/504 ApsErrors that say which endpoint and why.
 */
import { Agent, request } from "node:https";
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
  // One keep-alive agent per endpoint: a mutual-TLS handshake per call would cost more than the call.
  const agents = new Map<string, Agent>();
  const agentFor = (target: EndpointTarget) => {
    const key = `${new URL(target.endpoint).origin}|${target.endpointCa ?? ""}`;
    let agent = agents.get(key);
    if (!agent) {
      agent = new Agent({ keepAlive: true, maxSockets: 64, cert: options.cert, key: options.key, ...(target.endpointCa ? { ca: target.endpointCa } : {}) });
      agents.set(key, agent);
    }
    return agent;
  };
  return function call(target: EndpointTarget, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<EndpointReply> {
    const url = new URL(target.endpoint.replace(/\/$/, "") + path);
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          agent: agentFor(target),
          headers: { ...headers, ...(body ? { "content-length": String(body.length) } : {}) },
          timeout: options.timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on("error", (e) => reject(new ApsError(502, `The application endpoint ${target.endpoint} broke off its reply: ${e.message}.`)));
        },
      );
      req.on("timeout", () => {
        req.destroy();
        reject(new ApsError(504, `The application endpoint ${target.endpoint} did not answer ${method} ${path} within ${options.timeoutMs / 1000} s.`));
      });
      req.on("error", (e: NodeJS.ErrnoException) => reject(new ApsError(502, `The application endpoint ${target.endpoint} cannot be reached (${e.code ?? e.message}).`)));
      if (body) req.write(body);
      req.end();
    });
  };
}

/** The function {@link endpointClient} returns. */
export type EndpointCall = ReturnType<typeof endpointClient>;
