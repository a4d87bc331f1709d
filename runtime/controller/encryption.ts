/**
 * Encrypted properties (SPEC 2.3): sealed with AES-256-GCM before they reach the database. The
 * resource id is the additional authenticated data, so a sealed value copied onto another row
 * does not open. Layout: 12-byte IV | 16-byte tag | ciphertext.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { parseJsonText, stringifyJson } from "../common/json-text.ts";

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Seals and opens the encrypted properties of resources with one 32-byte key. */
export class PropertySealer {
  constructor(private readonly key: Uint8Array) {
    if (key.length !== 32) throw new Error("the encryption key must be 32 bytes (AES-256)");
  }

  seal(resourceId: string, values: Readonly<Record<string, unknown>>): Uint8Array {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(resourceId));
    const body = Buffer.concat([cipher.update(stringifyJson(values), "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  open(resourceId: string, sealed: Uint8Array): Record<string, unknown> {
    const data = Buffer.from(sealed);
    const decipher = createDecipheriv("aes-256-gcm", this.key, data.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(resourceId));
    decipher.setAuthTag(data.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const text = Buffer.concat([decipher.update(data.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    return parseJsonText(text) as Record<string, unknown>;
  }
}

/** Encrypted properties go to the sealed column, everything else to the jsonb body. */
export function splitEncrypted(properties: Readonly<Record<string, { readonly encrypted: boolean }>>, values: Readonly<Record<string, unknown>>): { body: Record<string, unknown>; secrets: Record<string, unknown> } {
  const body: Record<string, unknown> = {};
  const secrets: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) (properties[k]?.encrypted ? secrets : body)[k] = v;
  return { body, secrets };
}
