/**
 * The controller's own certificate authority (DESIGN 3): created on first start, it signs the
 * controller's HTTPS certificate now and application instance certificates later. Files live in
 * the data directory; private keys are written with mode 0600. In runtime/common because a
 * connector makes its HTTPS identity the same way (runtime/connector/tls.ts), and the connector
 * side never imports the controller.
 */
import "reflect-metadata";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createPrivateKey, webcrypto } from "node:crypto";
import { join } from "node:path";
import * as x509 from "@peculiar/x509";

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

// Node's WebCrypto; the cast keeps this compiling with and without the DOM library.
x509.cryptoProvider.set(webcrypto as never);

const KEY_ALGORITHM = { name: "ECDSA", namedCurve: "P-256" } as const;
const SIGNING = { name: "ECDSA", hash: "SHA-256" } as const;
const DAY = 24 * 60 * 60 * 1000;

/** PEM texts of a certificate and its private key. */
export interface KeyPairPem {
  readonly cert: string;
  readonly key: string;
}

/** The files of the controller's TLS identity. */
export interface ControllerTls {
  readonly ca: KeyPairPem;
  readonly server: KeyPairPem;
  /** The controller's client certificate, presented when it calls application endpoints. */
  readonly client: KeyPairPem;
  /** Paths, for people: where to find the CA certificate to trust. */
  readonly caCertPath: string;
  /** True when this call created them. */
  readonly created: boolean;
}

/**
 * Loads the CA and server certificate from `<dir>/tls/`, creating them when missing. The server
 * certificate names `hosts` (DNS names or IP addresses) and is re-issued when that list changes.
 */
export async function ensureControllerTls(dir: string, hosts: readonly string[]): Promise<ControllerTls> {
  const tlsDir = join(dir, "tls");
  mkdirSync(tlsDir, { recursive: true });
  const paths = {
    caCert: join(tlsDir, "ca.crt"),
    caKey: join(tlsDir, "ca.key"),
    cert: join(tlsDir, "server.crt"),
    key: join(tlsDir, "server.key"),
    hosts: join(tlsDir, "server.hosts"),
    clientCert: join(tlsDir, "controller-client.crt"),
    clientKey: join(tlsDir, "controller-client.key"),
  };
  let created = false;
  let newCa = false;
  if (!existsSync(paths.caCert) || !existsSync(paths.caKey)) {
    const ca = await createCa("aps-gen controller CA");
    writePem(paths.caKey, ca.key, true);
    writePem(paths.caCert, ca.cert, false);
    created = newCa = true;
  }
  const ca = { cert: readFileSync(paths.caCert, "utf8"), key: readFileSync(paths.caKey, "utf8") };
  const hostList = [...hosts].sort().join(",");
  if (created || !existsSync(paths.cert) || !existsSync(paths.key) || !existsSync(paths.hosts) || readFileSync(paths.hosts, "utf8") !== hostList) {
    const server = await issueCertificate(ca, { commonName: hosts[0] ?? "localhost", hosts, usage: "server" });
    writePem(paths.key, server.key, true);
    writePem(paths.cert, server.cert, false);
    writeFileSync(paths.hosts, hostList);
    created = true;
  }
  // Endpoints keep this certificate as the controller's identity (aps.x509.controller, compared
  // byte for byte by aps-node-runtime): issued again only with a new CA, not when the host list changes.
  if (newCa || !existsSync(paths.clientCert) || !existsSync(paths.clientKey)) {
    const client = await issueCertificate(ca, { commonName: "aps-gen controller", usage: "client" });
    writePem(paths.clientKey, client.key, true);
    writePem(paths.clientCert, client.cert, false);
  }
  return {
    ca,
    server: { cert: readFileSync(paths.cert, "utf8"), key: readFileSync(paths.key, "utf8") },
    client: { cert: readFileSync(paths.clientCert, "utf8"), key: readFileSync(paths.clientKey, "utf8") },
    caCertPath: paths.caCert,
    created,
  };
}

async function createCa(commonName: string): Promise<KeyPairPem> {
  const keys = await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ["sign", "verify"]);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${commonName}`,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 3650 * DAY),
    keys: keys as CryptoKeyPair,
    signingAlgorithm: SIGNING,
    extensions: [new x509.BasicConstraintsExtension(true, 0, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true), await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as CryptoKey)],
  });
  return { cert: cert.toString("pem"), key: await exportKey(keys.privateKey as CryptoKey) };
}

/** Issues a certificate signed by the CA: a server certificate, or a client one for an application instance. */
async function issueCertificate(ca: KeyPairPem, options: { commonName: string; hosts?: readonly string[]; usage: "server" | "client" }): Promise<KeyPairPem> {
  const keys = await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ["sign", "verify"]);
  const cert = await signLeaf(ca, keys.publicKey as CryptoKey, options);
  return { cert, key: await exportKey(keys.privateKey as CryptoKey) };
}

/** RSA for instance keys: the platform issues RSA keys and its runtimes look for `BEGIN RSA PRIVATE KEY`. */
const INSTANCE_KEY_ALGORITHM = { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" } as const;

/**
 * Credentials of an application instance, in the form the platform hands them over as
 * `aps.x509.self`: the certificate, a newline, then an RSA 2048 key as PKCS#1
 * (`-----BEGIN RSA PRIVATE KEY-----`), which aps-node-runtime splits on
 * (`src/runtime/endpoint.js:27`, docs/platform-forms.md §2.1) and which `openssl`, `curl -E` and
 * Python's `ssl.load_cert_chain` read as one file. Signed by the controller's CA.
 */
export async function issueInstanceCredentials(ca: KeyPairPem, commonName: string): Promise<KeyPairPem & { readonly self: string }> {
  // WebCrypto generates the key off the main thread, so a slow RSA generation does not block requests.
  const keys = await webcrypto.subtle.generateKey(INSTANCE_KEY_ALGORITHM, true, ["sign", "verify"]);
  const certPem = `${(await signLeaf(ca, keys.publicKey as CryptoKey, { commonName, usage: "client" })).trim()}\n`;
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey as CryptoKey));
  const key = createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" }).export({ type: "pkcs1", format: "pem" }).toString();
  return { cert: certPem, key, self: certPem + key };
}

/** A leaf certificate for `publicKey`, signed by the CA, valid 825 days (the most browsers accept). */
async function signLeaf(ca: KeyPairPem, publicKey: CryptoKey, options: { commonName: string; hosts?: readonly string[]; usage: "server" | "client" }): Promise<string> {
  const caCert = new x509.X509Certificate(ca.cert);
  const caKey = await importKey(ca.key);
  const names = (options.hosts ?? []).map((h) => (/^[\d.]+$|:/.test(h) ? { type: "ip" as const, value: h } : { type: "dns" as const, value: h }));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${options.commonName}`,
    issuer: caCert.subject,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 825 * DAY),
    signingKey: caKey,
    publicKey,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([options.usage === "server" ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
      ...(names.length ? [new x509.SubjectAlternativeNameExtension(names)] : []),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return cert.toString("pem");
}

async function exportKey(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString("base64").replace(/(.{64})/g, "$1\n").trim()}\n-----END PRIVATE KEY-----\n`;
}

async function importKey(pem: string): Promise<CryptoKey> {
  const der = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ""), "base64");
  return webcrypto.subtle.importKey("pkcs8", der, KEY_ALGORITHM, false, ["sign"]) as Promise<CryptoKey>;
}

function serial(): string {
  // Positive, 16 random bytes as hex (RFC 5280 allows up to 20 octets).
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = bytes[0]! & 0x7f;
  return Buffer.from(bytes).toString("hex");
}

function writePem(path: string, text: string, secret: boolean): void {
  writeFileSync(path, text, { mode: secret ? 0o600 : 0o644 });
}
