/**
 * Issue 16 item 3: `aps.x509.controller` is the certificate the controller presents when it calls
 * the endpoint (then its CA), so an endpoint that checks the caller as aps-node-runtime does
 * accepts the controller and nobody else. The endpoint below does what that runtime does, with
 * its code: it takes the first certificate of `aps.x509.controller` with
 * `tls.createSecureContext({cert}).context.getCertificate()` and refuses (403) every later call
 * whose peer certificate is not byte for byte that one (src/runtime/instance.js:60-76, :334-350).
 * Unlike the runtime, its listener does not refuse an unknown CA during the handshake (the
 * runtime relies on Node's default trust store there, platform-forms Q3).
 */
import { createServer, request, type Server } from "node:https";
import type { TLSSocket } from "node:tls";
import { createSecureContext } from "node:tls";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSignedBy } from "../../runtime/connector/trust.ts";
import { ensureControllerTls } from "../../runtime/common/certificate-authority.ts";
import { databases, startControllerUnderTest, type ControllerUnderTest } from "../e2e/controller-harness.ts";

describe.each(databases)("an endpoint that checks the controller as aps-node-runtime does, on %s", (kind) => {
  let t: ControllerUnderTest;
  let dir: string;
  let server: Server;
  let endpointCa: string;
  let endpoint: string;
  let controllerPem = "";
  let selfPem = "";
  let apscCertRaw: Buffer | undefined;
  const answered: { method: string; status: number }[] = [];

  beforeAll(async () => {
    t = await startControllerUnderTest(kind, ["types/examples/cloudmail"], { endpointTimeoutMs: 5000 });
    dir = mkdtempSync(join(tmpdir(), "aps-identity-"));
    const tls = await ensureControllerTls(join(dir, "tls"), ["127.0.0.1"]);
    endpointCa = tls.ca.cert;
    server = createServer(
      { key: tls.server.key, cert: tls.server.cert, requestCert: true, rejectUnauthorized: false },
      (req, res) => {
        let text = "";
        req.on("data", (d) => (text += d));
        req.on("end", () => {
          const send = (status: number, body: unknown) => {
            answered.push({ method: req.method ?? "", status });
            res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
          };
          const x509 = text
            ? (JSON.parse(text) as { aps?: { x509?: { self: string; controller: string } } }).aps?.x509
            : undefined;
          if (req.method === "POST" && x509 && !apscCertRaw) {
            // endpoint.js:492-558 / instance.js:60-76: a new instance keeps the first certificate of aps.x509.controller.
            apscCertRaw = (
              createSecureContext({ cert: x509.controller }).context as { getCertificate(): Buffer }
            ).getCertificate();
            controllerPem = x509.controller;
            selfPem = x509.self;
            return send(200, {});
          }
          const cert = (req.socket as TLSSocket).getPeerCertificate();
          if (!cert?.raw)
            return send(403, { code: 403, type: "Exception", message: "No client certificate was provided!" });
          if (!apscCertRaw || apscCertRaw.compare(cert.raw))
            return send(403, {
              code: 403,
              type: "Exception",
              message: "Provided certificate does not match saved APSC certificate!",
            });
          return send(200, {});
        });
      },
    );
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    endpoint = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    server?.close();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("takes the controller's calls: aps.x509.controller starts with the certificate the controller presents", async () => {
    const packageId = (await t.call("GET", "/aps/2/packages", { token: t.adminToken })).json.find(
      (p: { name: string }) => p.name.toLowerCase() === "cloudmail",
    ).id;
    const installed = await t.call("POST", "/aps/2/instances", {
      token: t.adminToken,
      body: {
        package: packageId,
        endpoint,
        endpointCa,
        settings: {
          apiEndpoint: "https://api.example",
          apiKey: "key-0123456789abcdef",
          apiSecret: "secret-0123456789",
        },
      },
    });
    expect(installed.status, installed.text).toBe(201);
    expect(controllerPem.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    expect(controllerPem.endsWith(`${t.controller.caCert.trim()}\n`)).toBe(true);
    // New credentials are handed over by a PUT to the application root: a call the endpoint checks.
    const reissued = await t.call("POST", `/aps/2/instances/${installed.json.id}/credentials`, { token: t.adminToken });
    expect(reissued.status, reissued.text).toBe(200);
    expect(answered.at(-1)).toEqual({ method: "PUT", status: 200 });
  }, 60_000);

  it("refuses another client certificate, also one the same CA issued (the instance's own)", async () => {
    const [cert, key] = selfPem.split(/(?=-----BEGIN RSA PRIVATE KEY-----)/);
    const status = await new Promise<number>((resolve, reject) => {
      request(
        `${endpoint}/cloudmail/00000000-0000-4000-8000-000000000001`,
        { method: "DELETE", ca: endpointCa, cert, key },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      )
        .on("error", reject)
        .end();
    });
    expect(status).toBe(403);
  }, 60_000);

  it("is what our own connector runtime trusts too: the controller's certificate, not the instance's", async () => {
    const der = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ""), "base64");
    const [controllerCert] = controllerPem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)!;
    const [instanceCert] = selfPem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)!;
    expect(await isSignedBy(der(controllerCert!), [controllerPem])).toBe(true);
    expect(await isSignedBy(der(instanceCert!), [controllerPem])).toBe(false);
    // What a controller before issue 16 sent (its CA alone) still admits what that CA issued.
    expect(await isSignedBy(der(controllerCert!), [t.controller.caCert])).toBe(true);
  });
});
