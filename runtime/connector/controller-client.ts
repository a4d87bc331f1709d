/**
 * How a connector calls the controller, built on the client runtime: with the
 * instance certificate it received at install, trusting the controller CA, passing
 * `APS-Transaction-ID` back so the call joins the running transaction, and `APS-Resource-ID` to
 * act for one of its resources' owners. `client` is the runtime client for the generated SDK
 * functions (`getMailbox(app.client, id)`); the verb helpers answer every status as it came.
 */
import { createClient, request, type ApsClient } from "../client/client.ts";
import { nodeDispatcher } from "../client/node-tls.ts";
import { parseJsonText, stringifyJson } from "../common/json-text.ts";
import { splitCertAndKey, type InstanceCredentials } from "./credentials.ts";

/** A controller reply. */
export interface ControllerReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: unknown;
}

/** Options of a controller client. */
export interface ControllerClientOptions {
  /** `APS-Controller-URI` of the call at hand (or the controller URL). */
  readonly controllerUri: string;
  readonly credentials: InstanceCredentials;
  readonly transactionId?: string;
  /** `APS-Resource-ID`: act for the owner of this resource. */
  readonly resourceId?: string;
}

/**
 * One connection pool per set of credentials: handlers make a controller client per call, and a
 * pool of their own would cost each call a TLS handshake. Re-issued credentials get a new pool;
 * past a handful (credentials re-issued again and again) the old pools are closed once idle.
 */
const pools = new Map<string, ReturnType<typeof nodeDispatcher>>();
const MAX_POOLS = 16;

function poolFor(credentials: InstanceCredentials): ReturnType<typeof nodeDispatcher> {
  const id = `${credentials.controllerCa}\n${credentials.certAndKey}`;
  let pool = pools.get(id);
  if (!pool) {
    if (pools.size >= MAX_POOLS) {
      for (const old of pools.values()) void old.close();
      pools.clear();
    }
    pool = nodeDispatcher({ ca: credentials.controllerCa, ...splitCertAndKey(credentials.certAndKey) });
    pools.set(id, pool);
  }
  return pool;
}

export function controllerClient(options: ControllerClientOptions) {
  const client: ApsClient = createClient({
    baseUrl: new URL(options.controllerUri).origin,
    dispatcher: poolFor(options.credentials),
    ...(options.transactionId ? { transactionId: options.transactionId } : {}),
    ...(options.resourceId ? { resourceId: options.resourceId } : {}),
  });
  const call = async (
    method: "GET" | "POST" | "PUT" | "DELETE",
    path: string,
    body?: unknown,
  ): Promise<ControllerReply> => {
    const reply = await request(client, {
      method,
      path,
      ...(body === undefined ? {} : { raw: { contentType: "application/json", data: stringifyJson(body) } }),
    });
    const text = await reply.text();
    let parsed: unknown = text;
    try {
      // 64-bit integers stay exact here (the connector's own JSON reader).
      parsed = text ? parseJsonText(text) : undefined;
    } catch {
      // Not JSON: keep the text.
    }
    return { status: reply.status, headers: Object.fromEntries(reply.headers), body: parsed };
  };
  return {
    client,
    get: (path: string) => call("GET", path),
    post: (path: string, body?: unknown) => call("POST", path, body),
    put: (path: string, body?: unknown) => call("PUT", path, body),
    delete: (path: string) => call("DELETE", path),
  };
}
