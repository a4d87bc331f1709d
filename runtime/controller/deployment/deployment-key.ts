/**
 * The deployment key: a secret the operator gives every controller of one deployment (a file, or
 * the environment), under which the deployment's own keys are sealed in the database
 * (deployment-secrets.ts). It never reaches the database or a log; only what it seals does.
 *
 * Each secret is sealed with AES-256-GCM under a key of its own, derived with HKDF-SHA256
 * (RFC 5869) from the deployment key, a random salt kept with the sealed value and the secret's
 * name; the name is also the additional authenticated data, so a sealed value copied onto another
 * name does not open. HKDF is a key derivation for keys that are already random, not for
 * passwords, hence at least 32 random bytes (`openssl rand -base64 32`), never a passphrase.
 *
 * Layout of a sealed value: 1 byte format (1) | 16 bytes salt | 12 bytes IV | 16 bytes tag | ciphertext.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const FORMAT = 1;
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + SALT_BYTES + IV_BYTES + TAG_BYTES;
/** The smallest deployment key taken: as many bytes as the AES-256 keys derived from it. */
const DEPLOYMENT_KEY_MIN_BYTES = 32;

/** A deployment key that is not one: too short, or not base64. The message is one line for an operator. */
export class DeploymentKeyFormatError extends Error {
  override readonly name = "DeploymentKeyFormatError";
}

/** A sealed value that does not open under this deployment key (another key, or changed bytes). */
export class SealedSecretError extends Error {
  override readonly name = "SealedSecretError";
}

/** Seals and opens the deployment's secrets with one deployment key. */
export class DeploymentKey {
  private constructor(private readonly secret: Buffer) {}

  /**
   * The key from its text: base64 of at least 32 bytes, surrounding white space ignored (a file
   * written by `openssl rand -base64 32 > file` ends with a newline). `source` names where it came
   * from, for the message when it is not a key.
   */
  static fromText(text: string, source: string): DeploymentKey {
    const trimmed = text.trim();
    const bytes =
      /^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) && trimmed.length % 4 === 0 ? Buffer.from(trimmed, "base64") : undefined;
    if (!bytes || bytes.length < DEPLOYMENT_KEY_MIN_BYTES) {
      throw new DeploymentKeyFormatError(
        `the deployment key in ${source} must be at least ${DEPLOYMENT_KEY_MIN_BYTES} random bytes, base64-encoded (make one with: openssl rand -base64 32)`,
      );
    }
    return new DeploymentKey(bytes);
  }

  /** Seals `value` as the secret called `name`. */
  seal(name: string, value: Uint8Array): Uint8Array {
    const salt = randomBytes(SALT_BYTES);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.keyFor(name, salt), iv);
    cipher.setAAD(Buffer.from(name, "utf8"));
    const body = Buffer.concat([cipher.update(value), cipher.final()]);
    return Buffer.concat([Buffer.of(FORMAT), salt, iv, cipher.getAuthTag(), body]);
  }

  /** Opens what {@link seal} sealed under the same name; throws {@link SealedSecretError} when this key does not open it. */
  open(name: string, sealed: Uint8Array): Buffer {
    const data = Buffer.from(sealed);
    if (data.length < HEADER_BYTES || data[0] !== FORMAT)
      throw new SealedSecretError(`the sealed ${name} is not in a format this controller reads`);
    const salt = data.subarray(1, 1 + SALT_BYTES);
    const iv = data.subarray(1 + SALT_BYTES, 1 + SALT_BYTES + IV_BYTES);
    const tag = data.subarray(1 + SALT_BYTES + IV_BYTES, HEADER_BYTES);
    const decipher = createDecipheriv("aes-256-gcm", this.keyFor(name, salt), iv);
    decipher.setAAD(Buffer.from(name, "utf8"));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(data.subarray(HEADER_BYTES)), decipher.final()]);
    } catch {
      throw new SealedSecretError(`the deployment key does not open the sealed ${name}`);
    }
  }

  /** The AES-256 key of one sealed value: HKDF-SHA256 over the deployment key, its salt and the secret's name. */
  private keyFor(name: string, salt: Uint8Array): Buffer {
    return Buffer.from(hkdfSync("sha256", this.secret, salt, `aps-gen deployment secret: ${name}`, 32));
  }
}
