/**
 * How a connector calls the controller (DESIGN 4): with the instance certificate it received at
 * install, trusting the controller CA, passing `APS-Transaction-ID` back so the call joins the
 * running transaction, and `APS-Resource-ID` to act for one of its resources' owners.
 */
import { request } from "node:https";
import { parseJsonText, stringifyJson } from "../common/json-text.ts";
import type { InstanceCredentials } from "./credentials.ts";

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

export function controllerClient(options: ControllerClientOptions) {
  const key = options.credentials.certAndKey.match(/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/)?.[0] ?? "";
  const cert = options.credentials.certAndKey.replace(key, "").trim();
  const call = (method: string, path: string, body?: unknown): Promise<ControllerReply> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(stringifyJson(body));
      const req = request(
        new URL(path, options.controllerUri),
        {
          method,
          cert,
          key,
          ca: options.credentials.controllerCa,
          headers: {
            ...(payload ? { "content-type": "application/json", "content-length": String(payload.length) } : {}),
            ...(options.transactionId ? { "APS-Transaction-ID": options.transactionId } : {}),
            ...(options.resourceId ? { "APS-Resource-ID": options.resourceId } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let parsed: unknown = text;
            try {
              parsed = text ? parseJsonText(text) : undefined;
            } catch {
              // Not JSON: keep the text.
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
          });
        },
      );
      req.on("error", reject);
      if (payload) req.write(payload);
      req.end();
    });
  return {
    get: (path: string) => call("GET", path),
    post: (path: string, body?: unknown) => call("POST", path, body),
    put: (path: string, body?: unknown) => call("PUT", path, body),
    delete: (path: string) => call("DELETE", path),
  };
}
