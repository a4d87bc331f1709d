import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endpointClient, type EndpointTarget } from "../../runtime/controller/forward/endpoint-client.ts";
import { Forwarder } from "../../runtime/controller/forward/forwarder.ts";
import type { RegistryType } from "../../runtime/controller/registry.ts";
import { ensureControllerTls } from "../../runtime/common/certificate-authority.ts";
import { repoRoot } from "../helpers/paths.ts";

/**
 * Issue 15 item 16: an endpoint that closes keep-alive connections right after answering makes
 * a pooled connection go stale just as a call goes out on it. A call that may be sent twice is
 * sent again on a new connection, so none of 400 provisionings fails; a call that may not is
 * not repeated.
 */
describe("endpoint calls over keep-alive connections the endpoint closes", () => {
  const dir = mkdtempSync(join(tmpdir(), "aps-endpoint-client-"));
  let endpoint: ChildProcess;
  let target: EndpointTarget;
  let call: ReturnType<typeof endpointClient>;
  let clientCert: { cert: string; key: string };

  beforeAll(async () => {
    const tls = await ensureControllerTls(dir, ["127.0.0.1"]);
    writeFileSync(join(dir, "endpoint.crt"), tls.server.cert);
    writeFileSync(join(dir, "endpoint.key"), tls.server.key);
    endpoint = spawn(
      process.execPath,
      [
        join(repoRoot, "test/fixtures/endpoints/closes-after-reply.mjs"),
        join(dir, "endpoint.crt"),
        join(dir, "endpoint.key"),
        "5",
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const port = await new Promise<string>((resolve) =>
      endpoint.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim())),
    );
    target = { instanceId: randomUUID(), endpoint: `https://127.0.0.1:${port}`, endpointCa: tls.ca.cert };
    clientCert = tls.client;
    call = endpointClient({ cert: tls.client.cert, key: tls.client.key, timeoutMs: 5_000 });
  });
  afterAll(() => {
    endpoint?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  const counts = async () =>
    JSON.parse((await call(target, "GET", "/count", {})).body.toString()) as Record<string, number>;

  it("provisions 400 times without a 502, each provisioning arriving once", async () => {
    const forwarder = new Forwarder(call, () => "https://controller.example");
    const type = { id: "http://example.com/t/1.0", name: "T", service: "things" } as unknown as RegistryType;
    const failures: string[] = [];
    for (let i = 0; i < 400; i++) {
      try {
        await forwarder.provision(target, type, { aps: { type: type.id, id: randomUUID() } }, {});
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
    expect(failures).toEqual([]);
    expect((await counts())["/things"]).toBe(400);
  }, 60_000);

  // A client of its own for each of the next two: a pooled connection left from earlier calls may
  // already be stale, and the call would then break before reaching the endpoint at all.
  const freshClient = () => endpointClient({ cert: clientCert.cert, key: clientCert.key, timeoutMs: 5_000 });

  it("sends a repeatable call once more, and only once, when its connection breaks before a reply", async () => {
    await expect(
      freshClient()(target, "POST", "/reset", {}, Buffer.from("{}"), { repeatable: true }),
    ).rejects.toMatchObject({ status: 502 });
    expect((await counts())["/reset"]).toBe(2);
  });

  it("does not repeat a call that may not be sent twice (a custom POST)", async () => {
    const before = (await counts())["/reset"] ?? 0;
    await expect(freshClient()(target, "POST", "/reset", {}, Buffer.from("{}"))).rejects.toMatchObject({ status: 502 });
    expect((await counts())["/reset"]).toBe(before + 1);
  });
});

/** An application's reply is held whole in memory, so the controller takes one only up to a bound. */
describe("replies larger than the controller takes", () => {
  const dir = mkdtempSync(join(tmpdir(), "aps-endpoint-reply-"));
  let server: Server;
  let target: EndpointTarget;
  let call: ReturnType<typeof endpointClient>;
  const MiB = 1024 * 1024;

  beforeAll(async () => {
    const tls = await ensureControllerTls(dir, ["127.0.0.1"]);
    server = createServer({ cert: tls.server.cert, key: tls.server.key }, (req, res) => {
      const size = req.url === "/small" ? 1000 : 3 * MiB;
      // Declared, or streamed without a length in 64 KiB chunks.
      if (req.url === "/declared") res.writeHead(200, { "content-length": size });
      for (let sent = 0; sent < size; sent += 64 * 1024) res.write(Buffer.alloc(Math.min(64 * 1024, size - sent), 120));
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    target = {
      instanceId: randomUUID(),
      endpoint: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      endpointCa: tls.ca.cert,
    };
    call = endpointClient({ cert: tls.client.cert, key: tls.client.key, timeoutMs: 5_000, maxReplyBytes: MiB });
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 502 for a reply past the bound, declared or streamed, and still takes one within it", async () => {
    for (const path of ["/declared", "/streamed"])
      await expect(call(target, "GET", path, {}), path).rejects.toMatchObject({
        status: 502,
        message: expect.stringMatching(/more than 1048576 bytes/),
      });
    expect((await call(target, "GET", "/small", {})).body.length).toBe(1000);
  });
});
