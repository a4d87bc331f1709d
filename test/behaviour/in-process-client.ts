import { parseJsonText, stringifyJson } from "../../runtime/common/json-text.ts";
import type { RunningController } from "../../runtime/controller/serve.ts";
import type { HttpReply } from "../helpers/https-client.ts";

/** What a suite may pass with a call, as with helpers/https-client.ts (minus what only a socket has). */
export interface CallOptions {
  readonly token?: string;
  readonly body?: unknown;
  readonly rawBody?: string | Uint8Array;
  readonly headers?: Record<string, string>;
}

/**
 * The calling surface of helpers/https-client.ts, answered by the controller in process
 * (`RunningController.request`): same request headers, the reply in the same shape (header names
 * in lower case, the body as text and losslessly parsed JSON). `controller` is asked at each call,
 * so calls reach the controller that runs after a restart.
 */
export function inProcessClient(controller: () => RunningController) {
  return async function call(method: string, path: string, options: CallOptions = {}): Promise<HttpReply> {
    const running = controller();
    const raw = options.rawBody ?? (options.body === undefined ? undefined : stringifyJson(options.body));
    const headers: Record<string, string> = {
      ...(raw !== undefined ? { "content-type": "application/json" } : {}),
      ...(options.token ? { "aps-token": options.token } : {}),
      ...options.headers,
    };
    const res = await running.request(new URL(path, running.url), {
      method,
      headers,
      ...(raw !== undefined ? { body: raw } : {}),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? parseJsonText(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: headersOf(res.headers), text, json };
  };
}

/** Response headers the way Node's client gives them: lower-case names, set-cookie as a list. */
function headersOf(headers: Headers): Record<string, string | string[] | undefined> {
  const out: Record<string, string | string[] | undefined> = Object.fromEntries(headers.entries());
  const cookies = headers.getSetCookie();
  if (cookies.length) out["set-cookie"] = cookies;
  return out;
}
