/**
 * Issue 18 item 3: a script reaches every client function from one import, the generated
 * `client/index.gen.ts`. test/fixtures/client/mail-setup.ts (the example in docs/clients.md) imports only
 * that module; `tsc -p tsconfig.json` compiles it, and here it runs against `aps-gen serve` with
 * a CloudMail connector behind mutual TLS.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cloudmailServices } from "../../generated/connector/examples/cloudmail/index.gen.ts";
import { getInstance } from "../../runtime/client/administration.ts";
import { createClient } from "../../runtime/client/client.ts";
import { nodeDispatcher } from "../../runtime/client/node-tls.ts";
import { createConnectorApp } from "../../runtime/connector/app.ts";
import { fileCredentialStore } from "../../runtime/connector/credentials.ts";
import { RawReply } from "../../runtime/connector/replies.ts";
import { startConnector, type RunningConnector } from "../../runtime/connector/serve.ts";
import { ensureControllerTls } from "../../runtime/common/certificate-authority.ts";
import { setUpMail } from "../fixtures/client/mail-setup.ts";
import { repoRoot } from "../helpers/paths.ts";
import { scratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { databases } from "./controller-harness.ts";
import { serveProcess, type ServeProcess } from "./serve-process.ts";

const SCRIPT = join(repoRoot, "test/fixtures/client/mail-setup.ts");

describe("the one-import script", () => {
  it("imports one module, the generated client index", () => {
    const specifiers = [
      ...readFileSync(SCRIPT, "utf8").matchAll(/^\s*(?:import|export)\b[^;]*?from\s+"([^"]+)"/gm),
    ].map((m) => m[1]);
    expect(specifiers).toEqual(["../../../generated/client/index.gen.js"]);
  });

  it("is the example of docs/clients.md, word for word but for the import path", () => {
    const page = readFileSync(join(repoRoot, "docs/clients.md"), "utf8");
    const block = /```ts\n(\/\/ One import[\s\S]*?)```/.exec(page)?.[1];
    expect(block).toBeDefined();
    const script = readFileSync(SCRIPT, "utf8")
      .split("\n")
      .slice(1)
      .join("\n")
      .replace("../../../generated/client/index.gen.js", "./generated/client/index.gen.js");
    expect(block!.split("\n").slice(1).join("\n")).toBe(script);
  });
});

describe.each(databases)("the one-import script against aps-gen serve on %s", (kind) => {
  const dir = mkdtempSync(join(tmpdir(), "aps-one-entry-"));
  const dataDir = join(dir, "data");
  let database: ScratchDatabase | undefined;
  let controller: ServeProcess;
  let connector: RunningConnector;
  let endpointCa = "";
  let base = "";
  const provisioned: string[] = [];

  beforeAll(async () => {
    if (kind === "postgres") database = await scratchDatabase("aps_one_entry");
    const tls = await ensureControllerTls(join(dir, "endpoint"), ["127.0.0.1"]);
    endpointCa = tls.ca.cert;
    const services = cloudmailServices({
      cloudmail: { provision: () => ({}), testConnection: () => ({ reachable: true }) },
      tenants: {
        provision: () => ({ organizationId: "org-1" }),
        usage: (_ctx, params) => ({ period: params.period }),
        exportMailboxes: () => new RawReply("text/csv", ""),
        importMailboxes: () => ({ created: 0, skipped: [] }),
        onSubscriptionLimitsChanged: () => undefined,
        onDomainLinked: () => undefined,
        onMailboxChanged: () => undefined,
      },
      domains: {
        provision: () => ({ verified: true }),
        verifyDns: () => ({ verified: true, missing: [] }),
        requiredRecords: () => [],
      },
      mailboxes: {
        provision: (_ctx, r) => {
          provisioned.push(r.localPart);
          return { address: `${r.localPart}@example.com`, used: 0 };
        },
        disable: () => undefined,
        enable: () => undefined,
        changePassword: () => true,
        checkAvailability: () => ({ available: true }),
        storageUsage: () => ({ usage: 0 }),
        purgeArchive: () => ({ messages: 0, freed: 0 }),
      },
    });
    connector = await startConnector(
      createConnectorApp({ services, credentials: fileCredentialStore(join(dir, "credentials")) }),
      tls.server,
    );
    controller = await serveProcess(dataDir, database?.url);
    base = await controller.url;
  }, 60_000);

  afterAll(async () => {
    controller?.child.kill("SIGTERM");
    await connector?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("installs, provisions with its required links, lists and gets a typed 400", async () => {
    const ca = readFileSync(join(dataDir, "tls/ca.crt"), "utf8");
    const token = readFileSync(join(dataDir, "admin.token"), "utf8").trim();
    const result = await setUpMail({ baseUrl: base, token, ca, endpoint: connector.url, endpointCa });
    expect(result.listed).toEqual([result.mailbox]);
    expect(result.refused).toBe("400 /localPart");
    expect(provisioned).toEqual(["ann"]);
    const dispatcher = nodeDispatcher({ ca });
    try {
      const instance = await getInstance(createClient({ baseUrl: base, token, dispatcher }), result.instance);
      expect(instance.rootService).toBe("cloudmail");
    } finally {
      await dispatcher.close();
    }
  });
});
