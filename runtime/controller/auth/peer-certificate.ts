/** The TLS client certificate of a request, as application authentication (SPEC 5) needs it. */
import type { TLSSocket } from "node:tls";
import type { HttpBindings } from "@hono/node-server";

/** A presented client certificate: its SHA-256 fingerprint and whether it chains to the controller CA. */
export interface PeerCertificate {
  readonly fingerprint: string;
  readonly authorized: boolean;
}

/** The client certificate of the request, or undefined when none was presented. */
export function peerCertificate(c: { readonly env: HttpBindings }): PeerCertificate | undefined {
  // Requests made in process (app.request, tests) have no socket.
  const socket = c.env?.incoming?.socket as TLSSocket | undefined;
  const peer = socket && typeof socket.getPeerCertificate === "function" ? socket.getPeerCertificate(false) : undefined;
  return socket && peer?.fingerprint256 ? { fingerprint: peer.fingerprint256, authorized: socket.authorized } : undefined;
}
