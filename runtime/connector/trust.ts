/**
 * Whether a peer certificate is the controller's. An endpoint keeps each install's
 * `aps.x509.controller`: the client certificate the controller presents, then its CA. As
 * aps-node-runtime does (instance.js:334-350), the peer must be byte for byte the first
 * certificate there; the instances' own certificates, issued by the same CA, are not the
 * controller. Controllers before issue 16 sent their CA alone: for such a text the peer must be
 * issued by that CA.
 */
import "reflect-metadata";
import { createHash, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

// Node's WebCrypto; the cast keeps this compiling with and without the DOM library.
x509.cryptoProvider.set(webcrypto as never);

const verdicts = new Map<string, boolean>();
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Checks `der` against each trusted `aps.x509.controller` text; results are cached per certificate. */
export async function isSignedBy(der: Uint8Array, trustedPems: readonly string[]): Promise<boolean> {
  // The trusted texts are part of the key: a new install may replace what is trusted.
  const key = `${createHash("sha256").update(der).update(trustedPems.join("\0")).digest("base64")}`;
  const known = verdicts.get(key);
  if (known !== undefined) return known;
  const peer = Buffer.from(der);
  const cert = new x509.X509Certificate(new Uint8Array(der));
  let ok = false;
  for (const text of trustedPems) {
    const [first] = (text.match(PEM_CERTIFICATE) ?? []).map((pem) => new x509.X509Certificate(pem));
    if (!first) continue;
    const isCa = first.getExtension(x509.BasicConstraintsExtension)?.ca === true;
    if (!isCa) {
      if (peer.equals(Buffer.from(first.rawData))) ok = true;
    } else if (cert.issuer === first.subject && (await cert.verify({ publicKey: first.publicKey, date: new Date() }))) {
      ok = true;
    }
    if (ok) break;
  }
  if (verdicts.size > 1000) verdicts.clear();
  verdicts.set(key, ok);
  return ok;
}
