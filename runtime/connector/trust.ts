/** Whether a peer certificate was issued by one of the trusted CA certificates. */
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

// Node's WebCrypto; the cast keeps this compiling with and without the DOM library.
x509.cryptoProvider.set(webcrypto as never);

const verdicts = new Map<string, boolean>();

/** Checks the signature and validity period of `der` against each CA; results are cached per certificate. */
export async function isSignedBy(der: Uint8Array, caPems: readonly string[]): Promise<boolean> {
  const key = `${Buffer.from(der).toString("base64")}|${caPems.length}`;
  const known = verdicts.get(key);
  if (known !== undefined) return known;
  const cert = new x509.X509Certificate(new Uint8Array(der));
  let ok = false;
  for (const pem of caPems) {
    const ca = new x509.X509Certificate(pem);
    if (cert.issuer !== ca.subject) continue;
    if (await cert.verify({ publicKey: ca.publicKey, date: new Date() })) {
      ok = true;
      break;
    }
  }
  if (verdicts.size > 1000) verdicts.clear();
  verdicts.set(key, ok);
  return ok;
}
