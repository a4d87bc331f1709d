/**
 * Encrypted properties (docs/aps/resources.md, "Encrypted properties"): sealed with AES-256-GCM
 * before they reach the database. The resource id is the additional authenticated data, so a sealed
 * value copied onto another row does not open. Layout: 12-byte IV | 16-byte tag | ciphertext.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { parseJsonText, stringifyJson } from "../../common/json-text.ts";

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Seals and opens the encrypted properties of resources with one 32-byte key. */
export class PropertySealer {
  constructor(private readonly key: Uint8Array) {
    if (key.length !== 32) throw new Error("the encryption key must be 32 bytes (AES-256)");
  }

  seal(resourceId: string, values: Readonly<Record<string, unknown>>): Uint8Array {
    return this.sealText(resourceId, stringifyJson(values));
  }

  open(resourceId: string, sealed: Uint8Array): Record<string, unknown> {
    return parseJsonText(this.openText(resourceId, sealed)) as Record<string, unknown>;
  }

  /** Seals any text; `context` (the row it belongs to) is the additional authenticated data. */
  sealText(context: string, text: string): Uint8Array {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  /** Opens what {@link sealText} sealed with the same `context`; throws when it was changed or belongs elsewhere. */
  openText(context: string, sealed: Uint8Array): string {
    const data = Buffer.from(sealed);
    const decipher = createDecipheriv("aes-256-gcm", this.key, data.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(data.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(data.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  }
}
