import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  DeploymentKey,
  DeploymentKeyFormatError,
  SealedSecretError,
} from "../../runtime/controller/deployment/deployment-key.ts";

/** Sealing the deployment's secrets under the operator's deployment key (AES-256-GCM, HKDF-SHA256 per secret). */
describe("the deployment key", () => {
  const text = randomBytes(32).toString("base64");
  const key = DeploymentKey.fromText(`${text}\n`, "test");
  const secret = randomBytes(32);

  it("opens what it sealed, under the same name", () => {
    const sealed = key.seal("token-key", secret);
    expect(key.open("token-key", sealed).equals(secret)).toBe(true);
    // Read from another instance made from the same text: nothing but the text is needed.
    expect(DeploymentKey.fromText(text, "again").open("token-key", sealed).equals(secret)).toBe(true);
  });

  it("never gives the same bytes twice (a salt and an IV of its own per seal) and holds no plaintext", () => {
    const pem = Buffer.from(
      "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n",
    );
    const one = Buffer.from(key.seal("ca-private-key", pem));
    const two = Buffer.from(key.seal("ca-private-key", pem));
    expect(one.equals(two)).toBe(false);
    expect(one.includes(pem)).toBe(false);
    expect(one.includes(Buffer.from("PRIVATE KEY"))).toBe(false);
    expect(one.length).toBe(1 + 16 + 12 + 16 + pem.length);
  });

  it("refuses another key, another name, and changed bytes", () => {
    const sealed = key.seal("token-key", secret);
    const other = DeploymentKey.fromText(randomBytes(32).toString("base64"), "other");
    expect(() => other.open("token-key", sealed)).toThrow(SealedSecretError);
    expect(() => key.open("encryption-key", sealed)).toThrow(SealedSecretError);
    for (const at of [0, 5, 20, 40, sealed.length - 1]) {
      const changed = Buffer.from(sealed);
      changed[at] = changed[at]! ^ 1;
      expect(() => key.open("token-key", changed), `byte ${at} changed`).toThrow(SealedSecretError);
    }
    expect(() => key.open("token-key", sealed.subarray(0, 20))).toThrow(SealedSecretError);
  });

  it("takes at least 32 bytes of base64 and says how to make one otherwise", () => {
    expect(() => DeploymentKey.fromText(randomBytes(31).toString("base64"), "short.key")).toThrow(
      /^the deployment key in short\.key must be at least 32 random bytes, base64-encoded \(make one with: openssl rand -base64 32\)$/,
    );
    expect(() =>
      DeploymentKey.fromText("correct horse battery staple correct horse battery staple", "APS_DEPLOYMENT_KEY"),
    ).toThrow(DeploymentKeyFormatError);
    expect(() => DeploymentKey.fromText("", "empty")).toThrow(DeploymentKeyFormatError);
    expect(() => DeploymentKey.fromText(`  ${randomBytes(48).toString("base64")}\r\n`, "long")).not.toThrow();
  });
});
