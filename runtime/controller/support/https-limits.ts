/**
 * How the controller's HTTPS server holds up against clients that connect and do nothing, send
 * slowly or never read (issue 15 items 20, 22): every phase of a connection has a time-out, a
 * client that stops reading is cut off, and TLS offers only forward-secret AEAD suites.
 */
import type { Server } from "node:https";
import type { TLSSocket } from "node:tls";

/** Time-outs of the HTTPS server, in milliseconds. */
export interface ServerTimeouts {
  /** From TCP connect to the end of the TLS handshake. */
  readonly handshakeMs: number;
  /**
   * From the start of a request (or of the connection, for its first) to the end of its
   * headers: also closes a connection that never sends a request.
   */
  readonly headersMs: number;
  /** From the start of a request to the end of its body (a 32 MiB package import included). */
  readonly requestMs: number;
  /** How long a keep-alive connection may wait for its next request. */
  readonly keepAliveMs: number;
  /** How long a reply may sit unsent because the client does not read it, before the connection is dropped. */
  readonly writeStallMs: number;
}

/**
 * Defaults. The handshake and headers of an honest client take milliseconds, so seconds are
 * plenty; a request body is given two minutes (32 MiB over a slow link); a reply that does not
 * move for 30 s belongs to a client that has stopped reading.
 */
export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = { handshakeMs: 10_000, headersMs: 20_000, requestMs: 120_000, keepAliveMs: 5_000, writeStallMs: 30_000 };

/**
 * TLS 1.2 suites: ECDHE key exchange (forward secrecy) with AEAD ciphers only, no CBC, no SHA-1
 * MACs, no static RSA (Mozilla's "intermediate" list). TLS 1.3 suites are all AEAD and stay as
 * Node has them; they are named so that setting the list does not drop TLS 1.3.
 */
const TLS_CIPHERS = [
  "TLS_AES_128_GCM_SHA256",
  "TLS_AES_256_GCM_SHA384",
  "TLS_CHACHA20_POLY1305_SHA256",
  "ECDHE-ECDSA-AES128-GCM-SHA256",
  "ECDHE-RSA-AES128-GCM-SHA256",
  "ECDHE-ECDSA-AES256-GCM-SHA384",
  "ECDHE-RSA-AES256-GCM-SHA384",
  "ECDHE-ECDSA-CHACHA20-POLY1305",
  "ECDHE-RSA-CHACHA20-POLY1305",
].join(":");

/** Options for `https.createServer`: TLS versions and suites, and the time-outs Node takes at creation. */
export function hardenedServerOptions(timeouts: ServerTimeouts): Record<string, unknown> {
  return {
    minVersion: "TLSv1.2",
    ciphers: TLS_CIPHERS,
    honorCipherOrder: true,
    handshakeTimeout: timeouts.handshakeMs,
    headersTimeout: timeouts.headersMs,
    requestTimeout: Math.max(timeouts.requestMs, timeouts.headersMs),
    keepAliveTimeout: timeouts.keepAliveMs,
    // Node checks headers and request time-outs on this period (30 s by default, longer than a short time-out).
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(timeouts.headersMs / 4))),
  };
}

/**
 * Applies the time-outs the server takes as properties, and two rules Node does not have. A
 * connection that has not begun a request `headersMs` after its handshake is closed (Node's
 * headers time-out starts only with the first byte of a request, so a client that connects and
 * says nothing would hold the connection for ever). A connection whose replies do not move is
 * dropped: bytes waiting to be sent and a count of sent bytes that has not grown for
 * `writeStallMs` mean a client that does not read, which would otherwise hold its replies in
 * memory for ever. One timer checks every open connection. Returns a function that stops it.
 */
export function applyServerTimeouts(server: Server, timeouts: ServerTimeouts): () => void {
  server.headersTimeout = timeouts.headersMs;
  server.requestTimeout = Math.max(timeouts.requestMs, timeouts.headersMs);
  server.keepAliveTimeout = timeouts.keepAliveMs;
  const watched = new Map<TLSSocket, { connected: number; requested: boolean; sent: number; since: number }>();
  server.on("secureConnection", (socket: TLSSocket) => {
    const now = Date.now();
    watched.set(socket, { connected: now, requested: false, sent: 0, since: now });
    socket.once("close", () => watched.delete(socket));
  });
  server.on("request", (request: { socket: TLSSocket }) => {
    const state = watched.get(request.socket);
    if (state) state.requested = true;
  });
  const timer = setInterval(
    () => {
      const now = Date.now();
      for (const [socket, state] of watched) {
        if (!state.requested && now - state.connected >= timeouts.headersMs) {
          watched.delete(socket);
          socket.destroy();
          continue;
        }
        // bytesWritten counts what is still buffered too; what left the buffer is the difference.
        const sent = socket.bytesWritten - socket.writableLength;
        if (socket.writableLength === 0 || sent !== state.sent) {
          state.sent = sent;
          state.since = now;
        } else if (now - state.since >= timeouts.writeStallMs) {
          watched.delete(socket);
          socket.destroy();
        }
      }
    },
    Math.max(20, Math.min(1_000, Math.floor(Math.min(timeouts.writeStallMs, timeouts.headersMs) / 4))),
  );
  timer.unref();
  return () => clearInterval(timer);
}
