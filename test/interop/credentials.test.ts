/**
 * Issue 16 item 3: `aps.x509.self` in the form the platform hands it to endpoints — a certificate,
 * a newline, and an RSA key as PKCS#1. The readers are the ones endpoints use: aps-node-runtime
 * splits the text on `-----BEGIN RSA PRIVATE KEY-----` (src/runtime/endpoint.js:27, :419-423;
 * docs/platform-forms.md §2.1), OpenSSL (`openssl x509`, `openssl pkey`, what `curl -E` loads) and
 * Python's `ssl.load_cert_chain` (the PHP runtime keeps the same text as `<instance>.pem`,
 * https://docs.cloudblue.com/cbc/sdk/7.4/api/rest/application/instance-operations).
 */
import { execFileSync } from "node:child_process";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureControllerTls, issueInstanceCredentials } from "../../runtime/common/certificate-authority.ts";
import { splitCertAndKey } from "../../runtime/connector/credentials.ts";

const RSA_BEGIN = "-----BEGIN RSA PRIVATE KEY-----";

describe("instance credentials (aps.x509.self)", () => {
  let dir: string;
  let self: string;
  let caCert: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "aps-x509-"));
    const tls = await ensureControllerTls(dir, ["localhost"]);
    caCert = tls.ca.cert;
    self = (await issueInstanceCredentials(tls.ca, "0f6b0b6a-5b4e-4d7e-9c2f-4a1c8c3e2d10")).self;
    writeFileSync(join(dir, "instance.pem"), self, { mode: 0o600 });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is a certificate, a newline, then an RSA 2048 key in PKCS#1", () => {
    expect(self).toMatch(/-----END CERTIFICATE-----\n-----BEGIN RSA PRIVATE KEY-----\n/);
    expect(self.endsWith("-----END RSA PRIVATE KEY-----\n")).toBe(true);
    // aps-node-runtime: the part before the marker is the certificate, the marker and the rest the key.
    const at = self.indexOf(RSA_BEGIN);
    expect(at).toBeGreaterThan(0);
    const cert = new X509Certificate(self.slice(0, at));
    const key = createPrivateKey(self.slice(at));
    expect(key.asymmetricKeyType).toBe("rsa");
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(cert.checkPrivateKey(key)).toBe(true);
    expect(cert.checkIssued(new X509Certificate(caCert))).toBe(true);
  });

  it("is read by openssl x509 and openssl pkey from the one file", () => {
    const file = join(dir, "instance.pem");
    expect(execFileSync("openssl", ["x509", "-in", file, "-noout", "-subject"], { encoding: "utf8" })).toContain(
      "0f6b0b6a-5b4e-4d7e-9c2f-4a1c8c3e2d10",
    );
    expect(execFileSync("openssl", ["pkey", "-in", file, "-noout", "-text"], { encoding: "utf8" })).toMatch(
      /Private-Key: \(2048 bit/,
    );
  });

  it("is loaded by Python's ssl.load_cert_chain", () => {
    const out = execFileSync(
      "python3",
      [
        "-c",
        "import ssl,sys; c=ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT); c.load_cert_chain(sys.argv[1]); print('loaded')",
        join(dir, "instance.pem"),
      ],
      { encoding: "utf8" },
    );
    expect(out.trim()).toBe("loaded");
  });

  it("is split into certificate and key by the connector runtime", () => {
    const { cert, key } = splitCertAndKey(self);
    expect(key.startsWith(RSA_BEGIN)).toBe(true);
    expect(new X509Certificate(cert).checkPrivateKey(createPrivateKey(key))).toBe(true);
  });
});
