/**
 * The connector's controller client shares one connection pool per set of credentials: handlers
 * make a client per call, and a pool each would cost every call a TLS handshake.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { controllerClient } from "../../runtime/connector/controller-client.ts";
import { ensureControllerTls } from "../../runtime/common/certificate-authority.ts";

describe("controllerClient", () => {
  const dir = mkdtempSync(join(tmpdir(), "aps-controller-client-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reuses the pool of the same credentials, and gives other credentials their own", async () => {
    const one = await ensureControllerTls(join(dir, "one"), ["127.0.0.1"]);
    const two = await ensureControllerTls(join(dir, "two"), ["127.0.0.1"]);
    const credentials = (tls: typeof one) => ({
      certAndKey: `${tls.server.cert}\n${tls.server.key}`,
      controllerCa: tls.ca.cert,
    });
    const a = controllerClient({
      controllerUri: "https://127.0.0.1:1/",
      credentials: credentials(one),
      transactionId: "t-1",
    });
    const b = controllerClient({
      controllerUri: "https://127.0.0.1:1/",
      credentials: credentials(one),
      transactionId: "t-2",
    });
    const c = controllerClient({ controllerUri: "https://127.0.0.1:1/", credentials: credentials(two) });
    expect(a.client.dispatcher).toBeDefined();
    expect(b.client.dispatcher).toBe(a.client.dispatcher);
    expect(c.client.dispatcher).not.toBe(a.client.dispatcher);
    // Each client still carries its own call's transaction.
    expect([a.client.transactionId, b.client.transactionId]).toEqual(["t-1", "t-2"]);
  });
});
