import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import {
  applyServerTimeouts,
  DEFAULT_SERVER_TIMEOUTS,
  hardenedServerOptions,
  type ServerTimeouts,
} from "../support/https-limits.ts";
import { ControllerStartError } from "../support/start-errors.ts";
import type { ControllerTls } from "../../common/certificate-authority.ts";

/** The HTTPS server, listening. */
export interface TlsListener {
  readonly url: string;
  readonly port: number;
  /** Stops accepting, waits for the requests in hand, then drops the stall checks. */
  close(): Promise<void>;
}

/**
 * Serves `fetch` over HTTPS at host:port with the controller's certificate, asking for (and not
 * requiring) a client certificate: an application instance presents the one it was issued,
 * other callers none. A port in use or an address this machine lacks is a start error of one line.
 */
export async function listenTls(
  fetch: (request: Request) => Response | Promise<Response>,
  host: string,
  port: number,
  tls: ControllerTls,
  timeouts: Partial<ServerTimeouts> | undefined,
): Promise<TlsListener> {
  const serverTimeouts = { ...DEFAULT_SERVER_TIMEOUTS, ...timeouts };
  const server = await new Promise<Server>((ready, fail) => {
    const s = serve(
      {
        fetch,
        port,
        hostname: host,
        createServer,
        serverOptions: {
          ...hardenedServerOptions(serverTimeouts),
          key: tls.server.key,
          cert: tls.server.cert,
          ca: tls.ca.cert,
          requestCert: true,
          rejectUnauthorized: false,
        },
      },
      () => ready(s as Server),
    );
    (s as Server).once("error", fail);
  }).catch((error: NodeJS.ErrnoException) => {
    throw listenError(error, host, port);
  });
  const stopStallChecks = applyServerTimeouts(server, serverTimeouts);
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `https://${host.includes(":") ? `[${host}]` : host}:${bound}`,
    port: bound,
    close: async () => {
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeIdleConnections();
      });
      stopStallChecks();
    },
  };
}

/** A listen failure an operator can act on, in one line (a ControllerStartError); anything else as it came. */
export function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  if (error.code === "EADDRINUSE")
    return new ControllerStartError(
      `port ${port} on ${host} is in use by another process; stop it or give another --port`,
      "port-in-use",
    );
  if (error.code === "EADDRNOTAVAIL" || error.code === "EACCES")
    return new ControllerStartError(
      `cannot listen on ${host}:${port}: ${error.code === "EACCES" ? "permission denied (ports below 1024 need privileges)" : "no such address on this machine"}`,
      "address-unavailable",
    );
  if (error.code === "ENOTFOUND" || error.code === "EAI_AGAIN")
    return new ControllerStartError(
      `cannot listen on ${host}:${port}: no address found for ${host}; give an IP address or a name this machine resolves as --host`,
      "address-unavailable",
    );
  return error;
}
