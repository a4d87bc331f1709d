/**
 * Issue 16 "must show": an application endpoint written in Python's standard library
 * (test/interop/python/endpoint.py: http.server + ssl, no aps-gen code). It loads `aps.x509.self`
 * from the install call with `ssl.load_cert_chain` and calls the controller back with it.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureControllerTls } from "../../runtime/common/certificate-authority.ts";
import { databases, startControllerUnderTest, type ControllerUnderTest } from "../e2e/controller-harness.ts";
import { portWrittenTo } from "../helpers/port-file.ts";

function get(url: string, ca: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    request(url, { ca }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    })
      .on("error", reject)
      .end();
  });
}

describe.each(databases)("a Python endpoint loads its instance credentials on %s", (kind) => {
  let t: ControllerUnderTest;
  let dir: string;
  let python: ChildProcess;
  let endpointUrl: string;
  let endpointCa: string;

  beforeAll(async () => {
    t = await startControllerUnderTest(kind, ["types/examples/cloudmail"], { endpointTimeoutMs: 5000 });
    dir = mkdtempSync(join(tmpdir(), "aps-python-"));
    const tls = await ensureControllerTls(join(dir, "tls"), ["127.0.0.1"]);
    endpointCa = tls.ca.cert;
    writeFileSync(join(dir, "server.crt"), tls.server.cert);
    writeFileSync(join(dir, "server.key"), tls.server.key);
    writeFileSync(join(dir, "controller-ca.crt"), t.controller.caCert);
    const portFile = join(dir, "port");
    python = spawn(
      "python3",
      [
        join(import.meta.dirname, "python", "endpoint.py"),
        portFile,
        join(dir, "server.crt"),
        join(dir, "server.key"),
        t.controller.url,
        join(dir, "controller-ca.crt"),
      ],
      { stdio: "inherit" },
    );
    endpointUrl = `https://127.0.0.1:${await portWrittenTo(portFile)}`;
  }, 60_000);
  afterAll(async () => {
    python?.kill();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("installs, loads aps.x509.self with ssl.load_cert_chain, and calls GET /aps/2/application with it", async () => {
    const packageId = (await t.call("GET", "/aps/2/packages", { token: t.adminToken })).json.find(
      (p: { name: string }) => p.name === "CloudMail",
    ).id;
    const installed = await t.call("POST", "/aps/2/instances", {
      token: t.adminToken,
      body: {
        package: packageId,
        endpoint: endpointUrl,
        endpointCa,
        settings: {
          apiEndpoint: "https://api.example",
          apiKey: "key-0123456789abcdef",
          apiSecret: "secret-0123456789",
        },
      },
    });
    expect(installed.status, installed.text).toBe(201);
    const probe = await get(`${endpointUrl}/probe?path=${encodeURIComponent("/aps/2/application")}`, endpointCa);
    expect(probe.status).toBe(200);
    expect(probe.json.status).toBe(200);
    expect(JSON.stringify(probe.json.body)).toContain("cloudmail");
    // The file the endpoint wrote is read by OpenSSL as certificate and as key.
    expect(
      execFileSync("openssl", ["x509", "-in", probe.json.pem, "-noout", "-subject"], { encoding: "utf8" }),
    ).toContain(installed.json.id);
    expect(execFileSync("openssl", ["pkey", "-in", probe.json.pem, "-noout", "-text"], { encoding: "utf8" })).toMatch(
      /2048 bit/,
    );
  }, 60_000);

  it("calls GET /aps/2/resources?implementing(...) back with that certificate and gets its resources", async () => {
    const [instance] = (await t.call("GET", "/aps/2/instances", { token: t.adminToken })).json as {
      rootResource: string;
    }[];
    const probe = await get(
      `${endpointUrl}/probe?path=${encodeURIComponent("/aps/2/resources?implementing(http://cloudmail.example.com/types/cloudmail/1.0)")}`,
      endpointCa,
    );
    expect(probe.json.status, JSON.stringify(probe.json.body)).toBe(200);
    expect(probe.json.body.map((r: { aps: { id: string } }) => r.aps.id)).toEqual([instance!.rootResource]);
    // The root's encrypted setting is the application's to read.
    expect(probe.json.body[0].apiSecret).toBe("secret-0123456789");
  }, 60_000);

  it("reads its services' schemas as the Connect extension does: GET /aps/2/application, then each service's schema URI", async () => {
    const services = await get(`${endpointUrl}/probe?path=${encodeURIComponent("/aps/2/application")}`, endpointCa);
    expect(services.json.status).toBe(200);
    const tenant = services.json.body.tenants as { schema: string };
    const schema = await get(`${endpointUrl}/probe?path=${encodeURIComponent(tenant.schema)}`, endpointCa);
    expect(schema.json.status, JSON.stringify(schema.json.body)).toBe(200);
    // As declared in types/examples/cloudmail/schemas/tenant.schema: counters by their structure type.
    expect(schema.json.body).toMatchObject({
      id: "http://cloudmail.example.com/types/tenant/1.0",
      apsVersion: "2.0",
      implements: ["http://aps-standard.org/types/core/resource/1.0"],
    });
    const counters = Object.entries(schema.json.body.properties as Record<string, { type: string }>)
      .filter(([, p]) => p.type.includes("Counter"))
      .map(([name]) => name);
    expect(counters.length).toBeGreaterThan(0);
  }, 60_000);
});
