/**
 * How the controller's HTTPS server holds up against clients that connect and do nothing, send
 * slowly or never read (issue 15 items 20, 22; issue 28): every phase of a connection has a
 * time-out, a request body has a minimum data rate, a client that stops reading is cut off, a
 * connection closed while its client is still sending is closed the lingering way (so the client
 * reads the reply instead of a reset), and TLS offers only forward-secret AEAD suites.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Server } from "node:https";
import { TLSSocket } from "node:tls";
import { errorBody } from "../../common/error-body.ts";

/** Time-outs and transfer limits of the HTTPS server (milliseconds, bytes). */
export interface ServerTimeouts {
  /** From TCP connect to the end of the TLS handshake. */
  readonly handshakeMs: number;
  /**
   * From the start of a request (or of the connection, for its first) to the end of its
   * headers: also closes a connection that never sends a request.
   */
  readonly headersMs: number;
  /** From the start of a request to the end of its body, however fast the body comes. */
  readonly requestMs: number;
  /** How long a keep-alive connection may wait for its next request. */
  readonly keepAliveMs: number;
  /** How long a reply may sit unsent because the client does not read it, before the connection is dropped. */
  readonly writeStallMs: number;
  /**
   * Least average rate of a request body, in bytes per second, once it has been read for
   * `bodyGraceMs`: a slower body is answered 408 and its connection closed. Time while the
   * controller itself is not reading (a handler busy before it reads) does not count. 0: none.
   */
  readonly minBodyBytesPerSecond: number;
  /** How long a body is read before its rate is held to `minBodyBytesPerSecond`. */
  readonly bodyGraceMs: number;
  /**
   * When a connection closes while its client is still sending (a 413, a 408, any reply given
   * before the body has all arrived): how long the server goes on reading and dropping what
   * comes, after its reply and its end of the connection, before it closes the connection.
   */
  readonly lingerMs: number;
  /** ... and how many bytes at most it reads and drops meanwhile (checked as often as the time-outs). */
  readonly lingerBytes: number;
}

/**
 * Defaults. The handshake and headers of an honest client take milliseconds, so seconds are
 * plenty. A body must keep up 240 bytes/s after 5 s, Kestrel's defaults
 * (https://learn.microsoft.com/en-us/dotnet/api/microsoft.aspnetcore.server.kestrel.core.kestrelserverlimits.minrequestbodydatarate),
 * so one sent a byte at a time is cut within seconds, while a whole request may take five
 * minutes, Node's own default for `server.requestTimeout`: a 32 MiB package over a 1 Mbit/s link
 * takes about 270 s. A reply that does not move for 30 s belongs to a client that has stopped
 * reading. A connection closed on a client still sending is read for 5 s or 64 MiB more: nginx's
 * lingering close waits 5 s for each read and 30 s in all
 * (https://nginx.org/en/docs/http/ngx_http_core_module.html#lingering_close), which a client
 * that has the reply and goes on sending does not deserve; @hono/node-server drains at most 64 MiB.
 */
export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = {
  handshakeMs: 10_000,
  headersMs: 20_000,
  requestMs: 300_000,
  keepAliveMs: 5_000,
  writeStallMs: 30_000,
  minBodyBytesPerSecond: 240,
  bodyGraceMs: 5_000,
  lingerMs: 5_000,
  lingerBytes: 64 * 1024 * 1024,
};

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

/** What the stall checks know of one connection. */
interface Watched {
  readonly connected: number;
  /** Its request being received or answered (the last one begun), and the reply to it. */
  request: IncomingMessage | undefined;
  reply: ServerResponse | undefined;
  /** Bytes read on the connection when that request began, for how long its body has been read since, and when that was last counted. */
  bodyFrom: number;
  bodyMs: number;
  bodyAt: number;
  /** Bytes sent, and bytes the kernel had not taken yet, at the last check; how long neither has moved while a reply waited. */
  sent: number;
  queued: number;
  stallMs: number;
  /** When its lingering close began (0: it has not), and bytes read by then. */
  lingerSince: number;
  lingerFrom: number;
}

/** The reply to a body cut for its rate, in the controller's error body; written on the socket, as Node writes its own 408. */
const REQUEST_TIMEOUT_BODY = JSON.stringify(
  errorBody(408, "The request body came too slowly; the connection is closed."),
);
const REQUEST_TIMEOUT_REPLY = `HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(REQUEST_TIMEOUT_BODY)}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n\r\n${REQUEST_TIMEOUT_BODY}`;

/**
 * Applies the time-outs the server takes as properties, and the rules Node does not have, all
 * checked by one timer over every open connection (nothing per request but a few fields set).
 *
 * - A connection that has not begun a request `headersMs` after its handshake is closed (Node's
 *   headers time-out starts only with the first byte of a request, so a client that connects
 *   and says nothing would hold the connection for ever).
 * - A connection whose replies do not move is dropped: bytes waiting to be sent that the
 *   kernel has not taken any of for `writeStallMs` mean a client that does not read, which
 *   would otherwise hold its replies in memory for ever ({@link unsentBytes} says how that is seen).
 * - A request body read for longer than `bodyGraceMs` at an average under
 *   `minBodyBytesPerSecond` is answered 408 (when no reply has begun) and its connection closed.
 *   Time while the socket is paused (the handler is not reading yet, so Node stopped reading)
 *   does not count.
 * - Neither counts more than two check periods between two checks: a busy event loop is not
 *   the client's fault (Kestrel counts its rates the same way).
 * - A connection that closes while its request body is still arriving — Node closes it after a
 *   reply that says `Connection: close` (request-body.ts sets it on a reply given before the
 *   body arrived), and the 408 above — first ends its sending side, then goes on reading and
 *   dropping the body for `lingerMs` or `lingerBytes`, as nginx's lingering close does: closing
 *   a socket with unread bytes sends a reset, and a client still sending would then lose the
 *   reply it had not yet read. A client that reads the reply and closes ends it sooner.
 *
 * Returns a function that stops the timer.
 */
export function applyServerTimeouts(server: Server, timeouts: ServerTimeouts): () => void {
  server.headersTimeout = timeouts.headersMs;
  server.requestTimeout = Math.max(timeouts.requestMs, timeouts.headersMs);
  server.keepAliveTimeout = timeouts.keepAliveMs;
  const watched = new Map<TLSSocket, Watched>();

  /** Node calls destroySoon to close a connection after its last reply: linger when the client is still sending. */
  function lingeringClose(this: TLSSocket): void {
    const state = watched.get(this);
    const request = state?.request;
    if (!state || !request || request.complete || this.readableEnded || this.destroyed) {
      TLSSocket.prototype.destroySoon.call(this);
      return;
    }
    if (state.lingerSince !== 0) return;
    state.lingerSince = Date.now();
    state.lingerFrom = this.bytesRead;
    // What is left of the body is read and dropped (a handler that stopped reading it left it paused).
    request.resume();
    // Ends the sending side after the reply; the socket closes itself when the client ends its own.
    if (this.writable) this.end();
  }

  server.on("secureConnection", (socket: TLSSocket) => {
    const now = Date.now();
    watched.set(socket, {
      connected: now,
      request: undefined,
      reply: undefined,
      bodyFrom: 0,
      bodyMs: 0,
      bodyAt: 0,
      sent: 0,
      queued: 0,
      stallMs: 0,
      lingerSince: 0,
      lingerFrom: 0,
    });
    socket.destroySoon = lingeringClose;
    socket.once("close", () => watched.delete(socket));
  });
  server.on("request", (request: IncomingMessage, reply: ServerResponse) => {
    const state = watched.get(request.socket as TLSSocket);
    if (!state) return;
    state.request = request;
    state.reply = reply;
    state.bodyFrom = request.socket.bytesRead;
    state.bodyMs = 0;
    state.bodyAt = Date.now();
  });

  const period = Math.max(
    20,
    Math.min(
      1_000,
      Math.floor(Math.min(timeouts.writeStallMs, timeouts.headersMs, timeouts.bodyGraceMs, timeouts.lingerMs) / 4),
    ),
  );
  let checked = Date.now();
  const timer = setInterval(() => {
    const now = Date.now();
    const step = Math.min(now - checked, 2 * period);
    checked = now;
    for (const [socket, state] of watched) {
      if (state.lingerSince !== 0) {
        if (now - state.lingerSince >= timeouts.lingerMs || socket.bytesRead - state.lingerFrom >= timeouts.lingerBytes)
          drop(socket);
        continue;
      }
      if (state.request === undefined && now - state.connected >= timeouts.headersMs) {
        drop(socket);
        continue;
      }
      // bytesWritten counts what is still buffered too; what left the buffer is the difference.
      const sent = socket.bytesWritten - socket.writableLength;
      const queued = unsentBytes(socket);
      if ((socket.writableLength === 0 && queued === 0) || sent !== state.sent || queued !== state.queued)
        state.stallMs = 0;
      else if ((state.stallMs += step) >= timeouts.writeStallMs) {
        drop(socket);
        continue;
      }
      state.sent = sent;
      state.queued = queued;
      const request = state.request;
      if (request !== undefined && !request.complete && timeouts.minBodyBytesPerSecond > 0) {
        if (!socket.isPaused()) state.bodyMs += Math.min(now - state.bodyAt, 2 * period);
        state.bodyAt = now;
        if (
          state.bodyMs > timeouts.bodyGraceMs &&
          (socket.bytesRead - state.bodyFrom) * 1000 < timeouts.minBodyBytesPerSecond * state.bodyMs
        ) {
          if (socket.writable && state.reply?.headersSent === false) socket.write(REQUEST_TIMEOUT_REPLY);
          lingeringClose.call(socket);
        }
      }
    }
  }, period);
  timer.unref();

  function drop(socket: TLSSocket): void {
    watched.delete(socket);
    socket.destroy();
  }
  return () => clearInterval(timer);
}

/**
 * Bytes of a connection that Node has handed to libuv and the kernel has not taken yet: it
 * shrinks as the client reads, within one write. Node's own counters (`bytesWritten`,
 * `writableLength`) move only when a whole write completes, and a reply is often one write (a
 * 16 MiB package file, a long list): a client reading it steadily at 1 Mbit/s completes it after
 * minutes, and would look stalled all that while. A TLS socket's handle is Node's TLSWrap; its
 * `_parent` is the TCP handle under it, whose `writeQueueSize` libuv keeps (both internal to
 * Node, lib/_tls_wrap.js, there since Node 0.11). Without them this gives 0, and only completed
 * writes count as progress.
 */
function unsentBytes(socket: TLSSocket): number {
  const handle = (socket as unknown as { _handle?: { _parent?: { writeQueueSize?: unknown } } | null })._handle;
  const size = handle?._parent?.writeQueueSize;
  return typeof size === "number" ? size : 0;
}
