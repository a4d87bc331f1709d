/**
 * The controller's data directory: keys, TLS files, the admin token and (on the embedded
 * default) the PGlite database. Secrets are files with mode 0600; the environment may supply
 * the keys instead (base64, 32 bytes), which several instances sharing one database need.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The two symmetric keys of a controller. */
export interface ControllerKeys {
  /** Signs APS tokens (HS256). */
  readonly token: Uint8Array;
  /** Seals encrypted properties (AES-256-GCM). */
  readonly encryption: Uint8Array;
}

/** Reads the keys, creating missing ones; `APS_TOKEN_KEY` / `APS_ENCRYPTION_KEY` win when set. */
export function loadKeys(dataDir: string, env: NodeJS.ProcessEnv = process.env): ControllerKeys {
  const dir = join(dataDir, "keys");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return { token: key(dir, "token.key", env.APS_TOKEN_KEY), encryption: key(dir, "encryption.key", env.APS_ENCRYPTION_KEY) };
}

function key(dir: string, name: string, fromEnv: string | undefined): Uint8Array {
  if (fromEnv) {
    const bytes = Buffer.from(fromEnv, "base64");
    if (bytes.length !== 32) throw new Error(`${name.replace(".key", "").toUpperCase()} key from the environment must be 32 bytes, base64-encoded`);
    return bytes;
  }
  const path = join(dir, name);
  if (!existsSync(path)) writeFileSync(path, randomBytes(32).toString("base64"), { mode: 0o600 });
  const bytes = Buffer.from(readFileSync(path, "utf8").trim(), "base64");
  if (bytes.length !== 32) throw new Error(`${path} must hold 32 bytes, base64-encoded`);
  return bytes;
}
