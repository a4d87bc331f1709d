import { connect as tcpConnect, type Socket } from "node:net";
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startControllerUnderTest, type ControllerUnderTest } from "./controller-harness.ts";

/** Resolves with how long (ms) until `socket` closes, or rejects after `ms`; reads it, as the end is only seen by reading. */
function closedWithin(socket: Socket, ms: number): Promise<number> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    if (socket.listenerCount("data") === 0) socket.on("data", () => {});
    const timer = setTimeout(() => reject(new Error(`still open after ${ms} ms`)), ms);
    socket.on("error", () => {});
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}

/**
 * Issue 15 items 20 and 22: connections that do nothing, and clients that never read, do not
 * hold the controller's resources; TLS 1.2 offers only ECDHE with AEAD ciphers; every reply says
 * nosniff and no-store. Time-outs are short here (the defaults are seconds to minutes).
 */
describe("the HTTPS server under idle, slow and old clients", () => {
  let t: ControllerUnderTest;
  const timeouts = { handshakeMs: 800, headersMs: 800, requestMs: 3_000, keepAliveMs: 500, writeStallMs: 800 };
  let port = 0;
  const tls = (options: ConnectionOptions = {}): Promise<TLSSocket> =>
    new Promise((resolve, reject) => {
      const s = tlsConnect(
        { host: "127.0.0.1", port, ca: t.controller.caCert, servername: "localhost", ...options },
        () => resolve(s),
      );
      s.once("error", reject);
    });

  beforeAll(async () => {
    t = await startControllerUnderTest("pglite", ["test/fixtures/controller/notes"], { serverTimeouts: timeouts });
    port = t.controller.port;
  }, 60_000);
  afterAll(async () => {
    await t?.dispose();
  });

  // The four time-outs of an idle connection run side by side: each waits on a timer of its
  // own socket (under a second each), and the server does nothing meanwhile.
  it.concurrent("closes a TCP connection that never starts the TLS handshake", async () => {
    const socket = tcpConnect({ host: "127.0.0.1", port });
    await new Promise((r) => socket.once("connect", r));
    expect(await closedWithin(socket, 5_000)).toBeLessThan(3_000);
  });

  it.concurrent("closes a TLS connection that never sends a request", async () => {
    const socket = await tls();
    expect(await closedWithin(socket, 5_000)).toBeLessThan(3_000);
  });

  it.concurrent("closes a connection that sends its headers too slowly", async () => {
    const socket = await tls();
    const closed = closedWithin(socket, 5_000);
    socket.write("GET /aps/2/types HTTP/1.1\r\nHost: localhost\r\n");
    const drip = setInterval(() => socket.writable && socket.write("X-Slow: 1\r\n"), 200);
    try {
      expect(await closed).toBeLessThan(3_000);
    } finally {
      clearInterval(drip);
    }
  });

  it.concurrent("closes an idle keep-alive connection after its reply", async () => {
    const socket = await tls();
    const closed = closedWithin(socket, 5_000);
    socket.write(`GET /aps/2/types HTTP/1.1\r\nHost: localhost\r\nAPS-Token: ${t.adminToken}\r\n\r\n`);
    const reply = await new Promise<string>((r) => socket.once("data", (d: Buffer) => r(d.toString("latin1"))));
    expect(reply).toMatch(/^HTTP\/1\.1 200/);
    expect(await closed).toBeLessThan(3_000);
  });

  it("drops a client that does not read its replies", async () => {
    const one = (await t.call("GET", "/aps/2/openapi.json")).text.length;
    const socket = await tls();
    // Pipelined requests whose replies (the OpenAPI document, each time) the client does not read:
    // the socket buffers fill and the server's replies stop moving.
    socket.pause();
    const count = 400;
    for (let i = 0; i < count; i++) socket.write("GET /aps/2/openapi.json HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await new Promise((r) => setTimeout(r, timeouts.writeStallMs * 4));
    // Reading again gets what was in the buffers, then the end: the server gave up on the rest.
    let received = 0;
    socket.on("data", (d: Buffer) => (received += d.length));
    const closed = closedWithin(socket, 10_000);
    socket.resume();
    await closed;
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan((count * one) / 2);
  });

  it("serves a client that reads slowly but steadily", async () => {
    const reply = await t.call("GET", "/aps/2/openapi.json");
    expect(reply.status).toBe(200);
  });

  it("refuses TLS 1.2 CBC and SHA-1 suites, static RSA and TLS 1.1; accepts ECDHE with AEAD and TLS 1.3", async () => {
    for (const ciphers of [
      "AES128-SHA",
      "ECDHE-ECDSA-AES128-SHA",
      "ECDHE-ECDSA-AES256-SHA384",
      "ECDHE-ECDSA-AES128-SHA256",
      "AES128-GCM-SHA256",
    ]) {
      await expect(tls({ ciphers, maxVersion: "TLSv1.2" }), ciphers).rejects.toThrow();
    }
    await expect(
      tls({ minVersion: "TLSv1.1", maxVersion: "TLSv1.1", ciphers: "DEFAULT:@SECLEVEL=0" }),
    ).rejects.toThrow();
    for (const ciphers of [
      "ECDHE-ECDSA-AES128-GCM-SHA256",
      "ECDHE-ECDSA-AES256-GCM-SHA384",
      "ECDHE-ECDSA-CHACHA20-POLY1305",
    ]) {
      const s = await tls({ ciphers, maxVersion: "TLSv1.2" });
      expect(s.getCipher().standardName).toMatch(/^TLS_ECDHE_ECDSA_WITH_(AES_\d+_GCM|CHACHA20_POLY1305)/);
      s.destroy();
    }
    const s13 = await tls();
    expect(s13.getProtocol()).toBe("TLSv1.3");
    s13.destroy();
  });

  it("says nosniff and no-store on every reply: success, error, not found", async () => {
    for (const [path, token, status] of [
      ["/aps/2/types", t.adminToken, 200],
      ["/aps/2/types", undefined, 401],
      ["/aps/2/nowhere", t.adminToken, 404],
      ["/aps/2/resources?bad((", t.adminToken, 400],
    ] as const) {
      const r = await t.call("GET", path, token ? { token } : {});
      expect(r.status, path).toBe(status);
      expect(r.headers["x-content-type-options"], path).toBe("nosniff");
      expect(r.headers["cache-control"], path).toBe("no-store");
    }
  });
});
