/**
 * The controller's data directory: keys, TLS files, the admin token and (on the embedded
 * default) the PGlite database. Secrets are files with mode 0600; the environment may supply
 * the keys instead (base64, 32 bytes). Several controllers on one database share their keys
 * through it instead, sealed under a deployment key (deployment/shared-keys.ts).
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

/** Where the keys lie in a data folder, and the environment variable that overrides each. */
export function keyFiles(
  dataDir: string,
): Readonly<Record<keyof ControllerKeys, { readonly path: string; readonly variable: string }>> {
  const dir = join(dataDir, "keys");
  return {
    token: { path: join(dir, "token.key"), variable: "APS_TOKEN_KEY" },
    encryption: { path: join(dir, "encryption.key"), variable: "APS_ENCRYPTION_KEY" },
  };
}

/** Reads the keys, creating missing ones; `APS_TOKEN_KEY` / `APS_ENCRYPTION_KEY` win when set. */
export function loadKeys(dataDir: string, env: NodeJS.ProcessEnv = process.env): ControllerKeys {
  mkdirSync(join(dataDir, "keys"), { recursive: true, mode: 0o700 });
  const files = keyFiles(dataDir);
  const load = (which: keyof ControllerKeys): Uint8Array => {
    const found = existingKey(files[which], env);
    if (found) return found;
    writeFileSync(files[which].path, randomBytes(32).toString("base64"), { mode: 0o600 });
    return existingKey(files[which], env)!;
  };
  return { token: load("token"), encryption: load("encryption") };
}

/** The keys the environment or the data folder holds, creating none (a node putting its keys into a deployment). */
export function existingKeys(dataDir: string, env: NodeJS.ProcessEnv = process.env): Partial<ControllerKeys> {
  const files = keyFiles(dataDir);
  const token = existingKey(files.token, env);
  const encryption = existingKey(files.encryption, env);
  return { ...(token ? { token } : {}), ...(encryption ? { encryption } : {}) };
}

/** The key from its variable when set, else from its file when there; undefined when neither. */
function existingKey(
  file: { readonly path: string; readonly variable: string },
  env: NodeJS.ProcessEnv,
): Uint8Array | undefined {
  const fromEnv = env[file.variable];
  if (fromEnv) {
    const bytes = Buffer.from(fromEnv, "base64");
    if (bytes.length !== 32)
      throw new Error(
        `${file.variable.replace(/^APS_(\w+)_KEY$/, "$1")} key from the environment must be 32 bytes, base64-encoded`,
      );
    return bytes;
  }
  if (!existsSync(file.path)) return undefined;
  const bytes = Buffer.from(readFileSync(file.path, "utf8").trim(), "base64");
  if (bytes.length !== 32) throw new Error(`${file.path} must hold 32 bytes, base64-encoded`);
  return bytes;
}
