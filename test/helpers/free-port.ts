import { createServer } from "node:net";

/**
 * A TCP port on 127.0.0.1 that nothing listened on a moment ago, for a server that cannot be told
 * to pick one itself and report it (PostgreSQL's `port`, HAProxy's `bind`). Another process can
 * take it before the server binds it: callers that can tell a bind failure apart retry with
 * another port.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error("no port assigned"))));
    });
  });
}
