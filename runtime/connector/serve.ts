/**
 * Runs a connector app over HTTPS, asking callers for a client certificate (the controller
 * presents its own; the app checks it against the controller CA it trusts). `close()` stops
 * serving and then writes the log lines the default logger still holds (connector-logger.ts), so
 * that a process stopped by its SIGTERM or SIGINT handler through `close()` keeps every call's line.
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import { flushBlockWrittenStdout } from "../common/block-written-stdout.ts";

/** A running endpoint. */
export interface RunningConnector {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startConnector(
  // biome-ignore lint/suspicious/noExplicitAny: any Hono app, whatever its environment type (Hono<E> is not assignable across E); only its fetch is used.
  app: Hono<any>,
  options: { cert: string; key: string; host?: string; port?: number },
): Promise<RunningConnector> {
  const host = options.host ?? "127.0.0.1";
  const server = await new Promise<Server>((ready) => {
    const s = serve(
      {
        fetch: app.fetch,
        port: options.port ?? 0,
        hostname: host,
        createServer,
        serverOptions: { cert: options.cert, key: options.key, requestCert: true, rejectUnauthorized: false },
      },
      () => ready(s as Server),
    );
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://${host}:${port}`,
    port,
    close: async () => {
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
      await flushBlockWrittenStdout();
    },
  };
}
