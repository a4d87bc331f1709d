/**
 * The port every worker of `serve --workers N` listens on. node:cluster's primary holds one
 * listening socket per address and port the workers ask for, and closes it when the last worker
 * using it ends; a worker then asking for port 0 again would get a new port, so a lone worker
 * started again after a crash would serve somewhere the printed URL (and a load balancer) does
 * not point. `--port 0` is therefore made a concrete free port here, once, before any worker
 * starts, and every worker (first or replacement) asks for that one.
 */
import { createServer } from "node:net";
import { listenError } from "../../../runtime/controller/start/listen-tls.ts";

/** `port`, or for 0 a port free on `host` now; rejects as the controller's own listen would (listenError). */
export async function sharedPort(host: string, port: number): Promise<number> {
  if (port !== 0) return port;
  return new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => reject(listenError(error, host, port)));
    probe.listen({ host, port: 0, exclusive: true }, () => {
      const { port: picked } = probe.address() as { port: number };
      probe.close(() => resolve(picked));
    });
  });
}
