import { X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, createServer, request, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TLSSocket } from "node:tls";
import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureControllerTls, type ControllerTls } from "../../runtime/common/certificate-authority.ts";
import { createConnectorApp } from "../../runtime/connector/app.ts";
import type { CredentialStore } from "../../runtime/connector/credentials.ts";
import { presentedCertificate, type PresentedCertificate } from "../../runtime/connector/peer-certificate.ts";
import { startConnector, type RunningConnector } from "../../runtime/connector/serve.ts";

/**
 * The connector reads the client certificate of a TLS connection once (runtime/connector/peer-certificate.ts):
 * the handshake fixes it, and the controller sends its calls over kept-alive connections. Over
 * real TLS connections: calls on one connection share what was read, another connection with
 * another certificate gets its own, and the app still refuses a caller that is not the controller
 * on a connection of its own, and follows a change of the trusted controller.
 */
describe("the client certificate, read once per TLS connection", () => {
  const dir = mkdtempSync(join(tmpdir(), "aps-connector-peer-"));
  let endpoint: ControllerTls;
  /** The controller the endpoint trusts, and another one (its certificate chains to a CA of its own). */
  let controller: ControllerTls;
  let other: ControllerTls;
  const agents: Agent[] = [];

  beforeAll(async () => {
    endpoint = await ensureControllerTls(join(dir, "endpoint"), ["127.0.0.1"]);
    controller = await ensureControllerTls(join(dir, "controller"), ["127.0.0.1"]);
    other = await ensureControllerTls(join(dir, "other"), ["127.0.0.1"]);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    for (const a of agents.splice(0)) a.destroy();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** One kept-alive connection (at most one socket), presenting `client` when given. */
  function connection(client?: { cert: string; key: string }): Agent {
    const agent = new Agent({
      keepAlive: true,
      maxSockets: 1,
      ca: endpoint.ca.cert,
      ...(client ? { cert: client.cert, key: client.key } : {}),
    });
    agents.push(agent);
    return agent;
  }

  function call(
    port: number,
    agent: Agent,
    method = "POST",
    path = "/items",
  ): Promise<{ status: number; localPort: number }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          method,
          path,
          agent,
          headers: { "content-type": "application/json", "aps-instance-id": "i-1" },
        },
        (res) => {
          // Read now: the socket goes back to the agent's pool once the reply has ended.
          const localPort = res.socket.localPort ?? 0;
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode ?? 0, localPort }));
        },
      );
      req.on("error", reject);
      req.end(method === "POST" ? "{}" : undefined);
    });
  }

  const der = (pem: string) => new X509Certificate(pem).raw;

  it("gives two calls on one kept-alive connection the same certificate, read once, and another connection's certificate its own", async () => {
    const seen: { socket: TLSSocket; presented: PresentedCertificate | undefined }[] = [];
    const server: Server = createServer(
      { ...endpoint.server, requestCert: true, rejectUnauthorized: false },
      (req, res) => {
        seen.push({ socket: req.socket as TLSSocket, presented: presentedCertificate(req.socket as TLSSocket) });
        req.resume();
        req.on("end", () => res.end("{}"));
      },
    );
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    const port = (server.address() as AddressInfo).port;
    const reads = vi.spyOn(TLSSocket.prototype, "getPeerCertificate");
    try {
      const first = connection(controller.client);
      await call(port, first);
      await call(port, first);
      await call(port, connection(other.client));
      await call(port, connection());
    } finally {
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
    }
    const [a1, a2, b, none] = seen;
    // The premise: the first two calls came over one connection, the others over connections of their own.
    expect(a1!.socket).toBe(a2!.socket);
    expect(new Set(seen.map((s) => s.socket)).size).toBe(3);
    expect(a2!.presented).toBe(a1!.presented);
    expect(Buffer.from(a1!.presented!.der).equals(der(controller.client.cert))).toBe(true);
    expect(b!.presented).not.toBe(a1!.presented);
    expect(Buffer.from(b!.presented!.der).equals(der(other.client.cert))).toBe(true);
    expect(none!.presented).toBeUndefined();
    // Read from the socket once per connection (the client side reads the server's certificate too: not counted).
    const serverSockets = new Set(seen.map((s) => s.socket));
    expect(reads.mock.contexts.filter((socket) => serverSockets.has(socket as TLSSocket))).toHaveLength(3);
  });

  describe("in the connector app", () => {
    let connector: RunningConnector;
    let trusted: string[];

    beforeAll(async () => {
      // What an install stores: the certificate the controller presents, then its CA. The list stays the same object until the trust changes, as fileCredentialStore keeps it.
      trusted = [`${controller.client.cert}\n${controller.ca.cert}`];
      const credentials: CredentialStore = {
        save: async () => {},
        load: async () => undefined,
        controllerCas: async () => trusted,
      };
      const app = createConnectorApp({
        services: { items: { provision: () => ({ externalId: "x" }) } },
        credentials,
        logger: pino({ level: "silent" }),
      });
      connector = await startConnector(app, endpoint.server);
    });
    afterAll(async () => connector?.close());

    it("takes the controller's calls on its connection, refuses another certificate on another one and a caller without one, reading each connection's certificate once", async () => {
      const reads = vi.spyOn(TLSSocket.prototype, "getPeerCertificate");
      const fromController = connection(controller.client);
      const fromOther = connection(other.client);
      const first = await call(connector.port, fromController);
      expect(first.status).toBe(200);
      expect((await call(connector.port, fromOther)).status).toBe(403);
      const again = await call(connector.port, fromController);
      expect(again).toEqual({ status: 200, localPort: first.localPort });
      expect((await call(connector.port, fromOther)).status).toBe(403);
      expect((await call(connector.port, connection())).status).toBe(401);
      const serverSide = reads.mock.contexts.filter((socket) => (socket as TLSSocket).localPort === connector.port);
      expect(serverSide).toHaveLength(3);
    });

    it("answers again for a connection when the trusted controller changes (a new install)", async () => {
      const fromController = connection(controller.client);
      const fromOther = connection(other.client);
      expect((await call(connector.port, fromController)).status).toBe(200);
      expect((await call(connector.port, fromOther)).status).toBe(403);
      trusted = [`${other.client.cert}\n${other.ca.cert}`];
      expect((await call(connector.port, fromOther)).status).toBe(200);
      expect((await call(connector.port, fromController)).status).toBe(403);
    });
  });
});
