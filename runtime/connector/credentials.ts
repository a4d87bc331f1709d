/**
 * The instance credentials an endpoint receives at install (docs/aps/security.md, "Application
 * credentials"): its certificate and key, and the controller's CA certificate. A file store keeps
 * them per instance id, keys with mode 0600, as `instance.crt`, `instance.key` and `apsc.crt` like
 * the reference runtime.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Credentials of one instance. */
export interface InstanceCredentials {
  /** Certificate and private key, PEM, concatenated (as `aps.x509.self` brings them). */
  readonly certAndKey: string;
  /** The controller CA certificate (PEM). */
  readonly controllerCa: string;
}

/** Where an endpoint keeps instance credentials. */
export interface CredentialStore {
  save(instanceId: string, credentials: InstanceCredentials): Promise<void>;
  load(instanceId: string): Promise<InstanceCredentials | undefined>;
  /** Every controller CA this endpoint trusts. */
  controllerCas(): Promise<string[]>;
}

const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;
const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----\n?/;

/** The certificate and the private key of `aps.x509.self`, which brings them as one PEM text. */
export function splitCertAndKey(certAndKey: string): { cert: string; key: string } {
  const key = certAndKey.match(PRIVATE_KEY)?.[0] ?? "";
  return { cert: certAndKey.replace(key, "").trim(), key };
}

/** Credentials as files under `dir/<instance id>/`. */
export function fileCredentialStore(dir: string): CredentialStore {
  let cas: string[] | undefined;
  return {
    async save(instanceId, credentials) {
      if (!SAFE_ID.test(instanceId))
        throw new Error(`instance id ${JSON.stringify(instanceId)} is not a plain identifier`);
      const d = join(dir, instanceId);
      mkdirSync(d, { recursive: true, mode: 0o700 });
      const { cert, key } = splitCertAndKey(credentials.certAndKey);
      writeFileSync(join(d, "instance.crt"), `${cert}\n`);
      writeFileSync(join(d, "instance.key"), key, { mode: 0o600 });
      writeFileSync(join(d, "apsc.crt"), credentials.controllerCa);
      cas = undefined;
    },
    async load(instanceId) {
      if (!SAFE_ID.test(instanceId)) return undefined;
      const d = join(dir, instanceId);
      if (!existsSync(join(d, "instance.crt"))) return undefined;
      return {
        certAndKey: readFileSync(join(d, "instance.crt"), "utf8") + readFileSync(join(d, "instance.key"), "utf8"),
        controllerCa: readFileSync(join(d, "apsc.crt"), "utf8"),
      };
    },
    async controllerCas() {
      if (cas) return cas;
      if (!existsSync(dir)) return [];
      cas = [
        ...new Set(
          readdirSync(dir)
            .filter((n) => existsSync(join(dir, n, "apsc.crt")))
            .map((n) => readFileSync(join(dir, n, "apsc.crt"), "utf8")),
        ),
      ];
      return cas;
    },
  };
}
