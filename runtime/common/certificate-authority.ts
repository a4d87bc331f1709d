/**
 * The controller's own certificate authority (docs/aps/security.md, "Application credentials"):
 * created on first start, it signs the controller's HTTPS certificate now and application instance
 * certificates later. Files live in the data directory; private keys are written with mode 0600. In
 * runtime/common because a connector makes its HTTPS identity the same way
 * (runtime/connector/tls.ts), and the connector side never imports the controller.
 */
import "reflect-metadata";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createPrivateKey, webcrypto, X509Certificate } from "node:crypto";
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

/** Where the files of a TLS identity lie under `<dir>/tls/`. */
export function controllerTlsFiles(dir: string) {
  const tlsDir = join(dir, "tls");
  return {
    dir: tlsDir,
    caCert: join(tlsDir, "ca.crt"),
    caKey: join(tlsDir, "ca.key"),
    cert: join(tlsDir, "server.crt"),
    key: join(tlsDir, "server.key"),
    hosts: join(tlsDir, "server.hosts"),
    clientCert: join(tlsDir, "controller-client.crt"),
    clientKey: join(tlsDir, "controller-client.key"),
  };
}

/**
 * Loads the CA and server certificate from `<dir>/tls/`, creating them when missing. The server
 * certificate names `hosts` (DNS names or IP addresses) and is re-issued when that list changes
 * or when the CA did not issue it.
 */
export async function ensureControllerTls(dir: string, hosts: readonly string[]): Promise<ControllerTls> {
  const paths = controllerTlsFiles(dir);
  mkdirSync(paths.dir, { recursive: true });
  let created = false;
  let newCa = false;
  if (!existsSync(paths.caCert) || !existsSync(paths.caKey)) {
    const ca = await createCertificateAuthority();
    writePem(paths.caKey, ca.key, true);
    writePem(paths.caCert, ca.cert, false);
    created = newCa = true;
  }
  const ca = { cert: readFileSync(paths.caCert, "utf8"), key: readFileSync(paths.caKey, "utf8") };
  const server = await ensureServerCertificate(dir, ca, hosts);
  created ||= server.created;
  // Endpoints keep this certificate as the controller's identity (aps.x509.controller, compared
  // byte for byte by aps-node-runtime): issued again only with a new CA, not when the host list changes.
  if (newCa || !existsSync(paths.clientCert) || !existsSync(paths.clientKey)) {
    const client = await issueControllerClientCertificate(ca);
    writePem(paths.clientKey, client.key, true);
    writePem(paths.clientCert, client.cert, false);
  }
  return {
    ca,
    server: server.pair,
    client: { cert: readFileSync(paths.clientCert, "utf8"), key: readFileSync(paths.clientKey, "utf8") },
    caCertPath: paths.caCert,
    created,
  };
}

/**
 * The TLS identity of one controller of a deployment whose CA and client certificate are given
 * (shared by every controller, kept elsewhere): `<dir>/tls/ca.crt` is written as the given CA
 * certificate (operators and clients trust it), and this node's own server certificate is issued
 * by that CA unless the one in `<dir>/tls/` already is and names the right hosts. The CA's private
 * key and the client certificate are not written here: they are the deployment's, not the node's.
 *
 * `names: "replace"` (joining a node) wants exactly `hosts`; `names: "extend"` (a start) wants at
 * least `hosts`, and a certificate issued now keeps the names the previous one had, so the names
 * a node was joined with survive its starts.
 */
export async function ensureNodeTls(
  dir: string,
  shared: { readonly ca: KeyPairPem; readonly client: KeyPairPem },
  hosts: readonly string[],
  names: "replace" | "extend",
): Promise<ControllerTls> {
  const paths = controllerTlsFiles(dir);
  mkdirSync(paths.dir, { recursive: true });
  const caChanged = !existsSync(paths.caCert) || readFileSync(paths.caCert, "utf8") !== shared.ca.cert;
  if (caChanged) writePem(paths.caCert, shared.ca.cert, false);
  const named = existsSync(paths.hosts) ? readFileSync(paths.hosts, "utf8").split(",").filter(Boolean) : [];
  const wanted = names === "replace" ? [...hosts] : [...named, ...hosts.filter((h) => !named.includes(h))];
  const server = await ensureServerCertificate(
    dir,
    shared.ca,
    wanted,
    names === "extend" ? (current) => hosts.every((h) => current.includes(h)) : undefined,
  );
  return {
    ca: shared.ca,
    server: server.pair,
    client: shared.client,
    caCertPath: paths.caCert,
    created: caChanged || server.created,
  };
}

/**
 * The CA and client certificate `<dir>/tls/` holds, creating none: a CA whose certificate and
 * key are both there, and the client certificate only when that CA issued it.
 */
export function existingControllerTls(dir: string): { readonly ca?: KeyPairPem; readonly client?: KeyPairPem } {
  const paths = controllerTlsFiles(dir);
  if (!existsSync(paths.caCert) || !existsSync(paths.caKey)) return {};
  const ca = { cert: readFileSync(paths.caCert, "utf8"), key: readFileSync(paths.caKey, "utf8") };
  if (!existsSync(paths.clientCert) || !existsSync(paths.clientKey)) return { ca };
  const client = { cert: readFileSync(paths.clientCert, "utf8"), key: readFileSync(paths.clientKey, "utf8") };
  return isIssuedBy(client.cert, ca.cert) ? { ca, client } : { ca };
}

/**
 * The server certificate of `<dir>/tls/`: kept when `ca` issued it and its names are `hosts`
 * (or, with `enough`, when they satisfy it), else issued now for `hosts` and written.
 */
async function ensureServerCertificate(
  dir: string,
  ca: KeyPairPem,
  hosts: readonly string[],
  enough?: (named: readonly string[]) => boolean,
): Promise<{ pair: KeyPairPem; created: boolean }> {
  const paths = controllerTlsFiles(dir);
  const hostList = [...hosts].sort().join(",");
  const current =
    existsSync(paths.cert) && existsSync(paths.key) && existsSync(paths.hosts)
      ? {
          cert: readFileSync(paths.cert, "utf8"),
          key: readFileSync(paths.key, "utf8"),
          named: readFileSync(paths.hosts, "utf8"),
        }
      : undefined;
  const namesFit = (named: string) => (enough ? enough(named.split(",")) : named === hostList);
  if (current && namesFit(current.named) && isIssuedBy(current.cert, ca.cert))
    return { pair: { cert: current.cert, key: current.key }, created: false };
  const server = await issueCertificate(ca, { commonName: hosts[0] ?? "localhost", hosts, usage: "server" });
  writePem(paths.key, server.key, true);
  writePem(paths.cert, server.cert, false);
  writeFileSync(paths.hosts, hostList);
  return { pair: server, created: true };
}

/** Whether the CA certificate `caCertPem` signed `certPem` (names match and the signature verifies); false for text that is no certificate. */
export function isIssuedBy(certPem: string, caCertPem: string): boolean {
  try {
    const cert = new X509Certificate(certPem);
    const ca = new X509Certificate(caCertPem);
    return cert.checkIssued(ca) && cert.verify(ca.publicKey);
  } catch {
    return false;
  }
}

/** A new CA for a controller: ECDSA P-256, self-signed, valid ten years. */
export function createCertificateAuthority(): Promise<KeyPairPem> {
  return createCa("aps-gen controller CA");
}

/** The certificate the controller presents to application endpoints, issued by its CA. */
export function issueControllerClientCertificate(ca: KeyPairPem): Promise<KeyPairPem> {
  return issueCertificate(ca, { commonName: "aps-gen controller", usage: "client" });
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
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as CryptoKey),
    ],
  });
  return { cert: cert.toString("pem"), key: await exportKey(keys.privateKey as CryptoKey) };
}

/** Issues a certificate signed by the CA: a server certificate, or a client one for an application instance. */
async function issueCertificate(
  ca: KeyPairPem,
  options: { commonName: string; hosts?: readonly string[]; usage: "server" | "client" },
): Promise<KeyPairPem> {
  const keys = await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ["sign", "verify"]);
  const cert = await signLeaf(ca, keys.publicKey as CryptoKey, options);
  return { cert, key: await exportKey(keys.privateKey as CryptoKey) };
}

/** RSA for instance keys: the platform issues RSA keys and its runtimes look for `BEGIN RSA PRIVATE KEY`. */
const INSTANCE_KEY_ALGORITHM = {
  name: "RSASSA-PKCS1-v1_5",
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: "SHA-256",
} as const;

/**
 * Credentials of an application instance, in the form the platform hands them over as
 * `aps.x509.self`: the certificate, a newline, then an RSA 2048 key as PKCS#1
 * (`-----BEGIN RSA PRIVATE KEY-----`), which aps-node-runtime splits on
 * (`src/runtime/endpoint.js:27`, docs/platform-forms.md §2.1) and which `openssl`, `curl -E` and
 * Python's `ssl.load_cert_chain` read as one file. Signed by the controller's CA.
 */
export async function issueInstanceCredentials(
  ca: KeyPairPem,
  commonName: string,
): Promise<KeyPairPem & { readonly self: string }> {
  // WebCrypto generates the key off the main thread, so a slow RSA generation does not block requests.
  const keys = await webcrypto.subtle.generateKey(INSTANCE_KEY_ALGORITHM, true, ["sign", "verify"]);
  const certPem = `${(await signLeaf(ca, keys.publicKey as CryptoKey, { commonName, usage: "client" })).trim()}\n`;
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey as CryptoKey));
  const key = createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" })
    .export({ type: "pkcs1", format: "pem" })
    .toString();
  return { cert: certPem, key, self: certPem + key };
}

/** A leaf certificate for `publicKey`, signed by the CA, valid 825 days (the most browsers accept). */
async function signLeaf(
  ca: KeyPairPem,
  publicKey: CryptoKey,
  options: { commonName: string; hosts?: readonly string[]; usage: "server" | "client" },
): Promise<string> {
  const caCert = new x509.X509Certificate(ca.cert);
  const caKey = await importKey(ca.key);
  const names = (options.hosts ?? []).map((h) =>
    /^[\d.]+$|:/.test(h) ? { type: "ip" as const, value: h } : { type: "dns" as const, value: h },
  );
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
      new x509.ExtendedKeyUsageExtension([
        options.usage === "server" ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth,
      ]),
      ...(names.length ? [new x509.SubjectAlternativeNameExtension(names)] : []),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return cert.toString("pem");
}

async function exportKey(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", key));
  return `-----BEGIN PRIVATE KEY-----\n${der
    .toString("base64")
    .replace(/(.{64})/g, "$1\n")
    .trim()}\n-----END PRIVATE KEY-----\n`;
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
