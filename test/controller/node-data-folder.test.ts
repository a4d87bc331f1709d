import { randomBytes, X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  createCertificateAuthority,
  ensureControllerTls,
  isIssuedBy,
  issueControllerClientCertificate,
} from "../../runtime/common/certificate-authority.ts";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { adoptDeploymentSecrets } from "../../runtime/controller/deployment/node-data-folder.ts";
import type { DeploymentSecrets } from "../../runtime/controller/deployment/shared-keys.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";

/** A node's data folder once the deployment's keys come from the database: its own server certificate, no other keys. */
describe("a node's data folder under the deployment's keys", () => {
  const root = mkdtempSync(join(tmpdir(), "aps-node-folder-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const deployment = async (): Promise<DeploymentSecrets> => {
    const ca = await createCertificateAuthority();
    return {
      keys: { token: randomBytes(32), encryption: randomBytes(32) },
      ca,
      client: await issueControllerClientCertificate(ca),
    };
  };
  const env = {};

  it("moves aside the secrets of a node that ran on its own, and issues its server certificate from the deployment's CA", async () => {
    const dir = join(root, "own-keys");
    const ownKeys = loadKeys(dir, env);
    const ownTls = await ensureControllerTls(dir, ["127.0.0.1", "localhost"]);
    writeFileSync(join(dir, "admin.token"), `${await new TokenService(ownKeys.token).mint({ accountId: "a" })}\n`);
    const secrets = await deployment();
    const at = new Date("2030-01-02T03:04:05.678Z");
    const adopted = await adoptDeploymentSecrets(dir, secrets, ["127.0.0.1", "localhost"], "extend", at);
    expect([...adopted.superseded].sort()).toEqual([
      "admin.token",
      "keys/encryption.key",
      "keys/token.key",
      "tls/ca.crt",
      "tls/ca.key",
      "tls/controller-client.crt",
      "tls/controller-client.key",
    ]);
    expect(adopted.supersededDir).toBe(join(dir, "superseded", "2030-01-02T03-04-05-678Z"));
    // Kept, not deleted: they may be the only key to what this node sealed before.
    expect(readFileSync(join(adopted.supersededDir!, "tls/ca.key"), "utf8")).toBe(ownTls.ca.key);
    expect(
      Buffer.from(readFileSync(join(adopted.supersededDir!, "keys/token.key"), "utf8"), "base64").equals(
        Buffer.from(ownKeys.token),
      ),
    ).toBe(true);
    for (const gone of [
      "keys/token.key",
      "keys/encryption.key",
      "tls/ca.key",
      "tls/controller-client.crt",
      "tls/controller-client.key",
      "admin.token",
    ])
      expect(existsSync(join(dir, gone)), gone).toBe(false);
    expect(readFileSync(join(dir, "tls/ca.crt"), "utf8")).toBe(secrets.ca.cert);
    expect(adopted.tls.server.cert).not.toBe(ownTls.server.cert);
    expect(isIssuedBy(adopted.tls.server.cert, secrets.ca.cert)).toBe(true);
    expect(isIssuedBy(adopted.tls.server.cert, ownTls.ca.cert)).toBe(false);
    expect(adopted.tls.client).toEqual(secrets.client);

    // A second start changes nothing: the certificate is the deployment's already.
    const again = await adoptDeploymentSecrets(dir, secrets, ["127.0.0.1", "localhost"], "extend");
    expect(again.superseded).toEqual([]);
    expect(again.tls.server.cert).toBe(adopted.tls.server.cert);
  });

  it("leaves the files that are the deployment's (the node it started from) where they are", async () => {
    const dir = join(root, "seed");
    const keys = loadKeys(dir, env);
    const tls = await ensureControllerTls(dir, ["127.0.0.1", "localhost"]);
    writeFileSync(join(dir, "admin.token"), `${await new TokenService(keys.token).mint({ accountId: "a" })}\n`);
    const adopted = await adoptDeploymentSecrets(
      dir,
      { keys, ca: tls.ca, client: tls.client },
      ["127.0.0.1", "localhost"],
      "extend",
    );
    expect(adopted.superseded).toEqual([]);
    expect(adopted.tls.server.cert).toBe(tls.server.cert);
    expect(existsSync(join(dir, "superseded"))).toBe(false);
  });

  it("keeps the names a node was joined with across starts, and adds the address it listens on", async () => {
    const dir = join(root, "names");
    const secrets = await deployment();
    const joined = await adoptDeploymentSecrets(
      dir,
      secrets,
      ["node-b.example.com", "localhost", "127.0.0.1"],
      "replace",
    );
    const names = (pem: string) => new X509Certificate(pem).subjectAltName;
    expect(names(joined.tls.server.cert)).toBe("DNS:node-b.example.com, DNS:localhost, IP Address:127.0.0.1");
    // A start on 127.0.0.1 is satisfied with the joined certificate.
    const started = await adoptDeploymentSecrets(dir, secrets, ["127.0.0.1", "localhost"], "extend");
    expect(started.tls.server.cert).toBe(joined.tls.server.cert);
    // A start on another address gets a certificate naming it too, and still the joined name.
    const elsewhere = await adoptDeploymentSecrets(dir, secrets, ["10.1.2.3", "localhost", "127.0.0.1"], "extend");
    expect(names(elsewhere.tls.server.cert)).toMatch(/DNS:node-b\.example\.com/);
    expect(names(elsewhere.tls.server.cert)).toMatch(/IP Address:10\.1\.2\.3/);
    // Joining again replaces the names.
    const rejoined = await adoptDeploymentSecrets(
      dir,
      secrets,
      ["node-c.example.com", "localhost", "127.0.0.1"],
      "replace",
    );
    expect(names(rejoined.tls.server.cert)).toBe("DNS:node-c.example.com, DNS:localhost, IP Address:127.0.0.1");
  });
});
