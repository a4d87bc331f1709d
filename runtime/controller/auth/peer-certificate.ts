/** The TLS client certificate of a request, as application authentication (docs/aps/security.md, "Application credentials") needs it. */
import type { TLSSocket } from "node:tls";
import type { HttpBindings } from "@hono/node-server";

/** A presented client certificate: its SHA-256 fingerprint and whether it chains to the controller CA. */
export interface PeerCertificate {
  readonly fingerprint: string;
  readonly authorized: boolean;
}

/** What each TLS connection presented: it cannot change while the connection lasts (null: nothing). */
const presented = new WeakMap<TLSSocket, PeerCertificate | null>();

/** The client certificate of the request, or undefined when none was presented. Read once per connection. */
export function peerCertificate(c: { readonly env: HttpBindings }): PeerCertificate | undefined {
  // Requests made in process (app.request, tests) have no socket.
  const socket = c.env?.incoming?.socket as TLSSocket | undefined;
  if (!socket || typeof socket.getPeerCertificate !== "function") return undefined;
  let known = presented.get(socket);
  if (known === undefined) {
    const peer = socket.getPeerCertificate(false);
    known = peer?.fingerprint256 ? { fingerprint: peer.fingerprint256, authorized: socket.authorized } : null;
    presented.set(socket, known);
  }
  return known ?? undefined;
}
