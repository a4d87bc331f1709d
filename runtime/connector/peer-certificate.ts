/**
 * The client certificate a connection presented, and whether it is the controller's, worked out
 * once per TLS connection: the certificate is fixed by the handshake, and the controller sends its
 * calls over kept-alive connections, where `getPeerCertificate()` per call (which converts the
 * whole certificate into an object each time) was about a seventh of the connector's CPU per call
 * (docs/performance.md). The controller reads its callers' certificates the same way
 * (runtime/controller/auth/peer-certificate.ts).
 */
import type { TLSSocket } from "node:tls";
import { isSignedBy } from "./trust.ts";

/** What one connection presented; `verdict` is the last answer to "is this the controller?", for the trusted list it was given. */
export interface PresentedCertificate {
  /** The certificate, DER. */
  readonly der: Uint8Array;
  verdict?: { readonly trusted: readonly string[]; readonly ok: boolean };
}

const presented = new WeakMap<TLSSocket, PresentedCertificate | null>();

/** The client certificate of the connection, read from the socket once; undefined when none was presented or there is no TLS socket (requests made in process). */
export function presentedCertificate(socket: TLSSocket | undefined): PresentedCertificate | undefined {
  if (!socket || typeof socket.getPeerCertificate !== "function") return undefined;
  let known = presented.get(socket);
  if (known === undefined) {
    const peer = socket.getPeerCertificate(false);
    known = peer?.raw ? { der: peer.raw } : null;
    presented.set(socket, known);
  }
  return known ?? undefined;
}

/**
 * Whether the certificate is the controller's for `trusted` (trust.ts). A credential store gives
 * the same list until an install changes it, so the answer is kept per connection for that list;
 * a new list is checked again (and trust.ts keeps its answers per certificate and list).
 */
export async function isControllerCertificate(
  certificate: PresentedCertificate,
  trusted: readonly string[],
): Promise<boolean> {
  if (certificate.verdict?.trusted === trusted) return certificate.verdict.ok;
  const ok = await isSignedBy(certificate.der, trusted);
  certificate.verdict = { trusted, ok };
  return ok;
}
