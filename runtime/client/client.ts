/**
 * A small fetch client for the controller: base URL, `APS-Token`
 * for users and scripts, or a client certificate for applications (Node: pass the dispatcher of
 * `node-tls.ts`), `APS-Transaction-ID` and `APS-Resource-ID` when an application calls. Every
 * failed reply is an {@link ApsError} that keeps the HTTP status. The generated SDK functions
 * take such a client as their first argument.
 */
import { apsErrorOf } from "./aps-error.ts";
import { jsonText, parseJson } from "./json.ts";

export { jsonText } from "./json.ts";

/** How to reach the controller and who calls. */
export interface ApsClientOptions {
  /** The controller's URL, e.g. `https://127.0.0.1:8443`. */
  readonly baseUrl: string;
  /** `APS-Token` of a user, account or script. */
  readonly token?: string;
  /** `APS-Transaction-ID`: join the transaction an application is handling. */
  readonly transactionId?: string;
  /** `APS-Resource-ID`: an application acting for one of its resources' owners. */
  readonly resourceId?: string;
  /** Another fetch (tests, instrumentation); the platform's by default. */
  readonly fetch?: typeof fetch;
  /** Node only: an undici dispatcher, for client certificates or a private CA (see node-tls.ts). */
  readonly dispatcher?: unknown;
}

/** A client: the options, frozen. */
export type ApsClient = Readonly<ApsClientOptions>;

/** Creates a client. */
export function createClient(options: ApsClientOptions): ApsClient {
  return Object.freeze({ ...options, baseUrl: options.baseUrl.replace(/\/+$/, "") });
}

/** A derived client with other options (e.g. the transaction of the call at hand). */
export function withOptions(client: ApsClient, changes: Partial<ApsClientOptions>): ApsClient {
  return createClient({ ...client, ...changes });
}

/** A body that is not JSON: bytes or text with its content type. */
export interface RawBody {
  readonly contentType: string;
  readonly data: Blob | Uint8Array | ArrayBuffer | string;
}

/** One call: the path below the base URL (already escaped), an optional query, and a JSON or raw body. */
export interface ApsCall {
  readonly method: "GET" | "POST" | "PUT" | "DELETE";
  readonly path: string;
  readonly query?: string;
  readonly json?: unknown;
  readonly raw?: RawBody;
}

/** Sends a call and resolves with the reply, whatever its status (see {@link send} for the usual way). */
export function request(client: ApsClient, call: ApsCall): Promise<Response> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (client.token) headers["APS-Token"] = client.token;
  if (client.transactionId) headers["APS-Transaction-ID"] = client.transactionId;
  if (client.resourceId) headers["APS-Resource-ID"] = client.resourceId;
  let body: RequestInit["body"];
  if (call.json !== undefined) {
    headers["content-type"] = "application/json";
    body = jsonText(call.json);
  } else if (call.raw) {
    headers["content-type"] = call.raw.contentType;
    body = call.raw.data as RequestInit["body"];
  }
  const url = `${client.baseUrl}${call.path}${call.query ? `?${call.query}` : ""}`;
  const init = {
    method: call.method,
    headers,
    ...(body === undefined ? {} : { body }),
    ...(client.dispatcher ? { dispatcher: client.dispatcher } : {}),
  };
  return (client.fetch ?? fetch)(url, init as RequestInit);
}

/** Sends a call; resolves with the reply when its status is 2xx, else rejects with an ApsError. */
export async function send(client: ApsClient, call: ApsCall): Promise<Response> {
  const reply = await request(client, call);
  if (!reply.ok) throw await apsErrorOf(reply);
  return reply;
}

/** A call whose reply is JSON (or nothing: undefined); 64-bit integers arrive exact (as bigint beyond 2^53). */
export async function sendJson<T>(client: ApsClient, call: ApsCall): Promise<T> {
  const reply = await send(client, call);
  const text = await reply.text();
  return (text ? parseJson(text) : undefined) as T;
}

/** Percent-encodes a path segment. */
export function segment(value: string | number | bigint | boolean): string {
  return encodeURIComponent(String(value));
}

/** A query string of operation parameters; absent values are left out. */
export function queryString(values: Record<string, string | number | bigint | boolean | undefined>): string {
  return Object.entries(values)
    .filter((e): e is [string, string | number | bigint | boolean] => e[1] !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join("&");
}
