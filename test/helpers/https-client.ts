import { request } from "node:https";
import { parseJsonText, stringifyJson } from "../../runtime/common/json-text.ts";

/** A response as tests look at it. */
export interface HttpReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The body parsed losslessly, or undefined when it is not JSON. */
  readonly json: any;
}

/** A small HTTPS client that trusts one CA: real TLS, real HTTP, no mocks. */
export function httpsClient(
  baseUrl: string,
  ca: string,
  clientCertificate?: { readonly cert: string; readonly key: string },
) {
  return async function call(
    method: string,
    path: string,
    options: {
      token?: string;
      body?: unknown;
      rawBody?: string | Uint8Array;
      headers?: Record<string, string>;
      localAddress?: string;
    } = {},
  ): Promise<HttpReply> {
    const url = new URL(path, baseUrl);
    const raw = options.rawBody ?? (options.body === undefined ? undefined : stringifyJson(options.body));
    const payload =
      raw === undefined ? undefined : typeof raw === "string" ? Buffer.from(raw, "utf8") : Buffer.from(raw);
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          ca,
          // An application instance's credentials (mutual TLS).
          ...(clientCertificate ? { cert: clientCertificate.cert, key: clientCertificate.key } : {}),
          // Another loopback address (127.0.0.2...) is another source to the controller's per-source limits.
          ...(options.localAddress ? { localAddress: options.localAddress, agent: false } : {}),
          headers: {
            ...(payload !== undefined ? { "content-type": "application/json", "content-length": payload.length } : {}),
            ...(options.token ? { "aps-token": options.token } : {}),
            ...options.headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let json: unknown;
            try {
              json = text ? parseJsonText(text) : undefined;
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
          });
        },
      );
      req.on("error", reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  };
}
