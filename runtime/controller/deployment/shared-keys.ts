/**
 * One set of keys for every controller of a deployment: the token key, the encryption key of
 * encrypted properties, the CA (certificate and private key) that issues instance and server
 * certificates, and the controller's client certificate that applications keep as its identity.
 * They live in the database, sealed under the deployment key (deployment-key.ts), so that a token
 * one node mints, a property one node seals and a certificate one node issues are good on every
 * node, whatever each node's data folder holds.
 *
 * The first controller started with a deployment key stores the keys it has: those of its data
 * folder (or of APS_TOKEN_KEY / APS_ENCRYPTION_KEY), so a single-node deployment grows without
 * re-issuing a token, a certificate or a sealed value; keys it lacks are made in memory, never
 * written to its folder. Every later start, on any node, opens the stored ones.
 */
import {
  createCertificateAuthority,
  existingControllerTls,
  issueControllerClientCertificate,
  isIssuedBy,
  type KeyPairPem,
} from "../../common/certificate-authority.ts";
import { randomBytes } from "node:crypto";
import type { Db } from "../store/open-database.ts";
import { existingKeys, keyFiles, type ControllerKeys } from "../support/data-directory.ts";
import { ControllerStartError } from "../support/start-errors.ts";
import { SealedSecretError, type DeploymentKey } from "./deployment-key.ts";
import { readSealedSecrets, storeSealedSecretsUnlessPresent, type SealedSecrets } from "./secret-store.ts";

/** The deployment's secrets, in clear, in memory only. */
export interface DeploymentSecrets {
  readonly keys: ControllerKeys;
  readonly ca: KeyPairPem;
  /** The controller's client certificate (aps.x509.controller), issued by `ca`. */
  readonly client: KeyPairPem;
}

/** How each secret is named in the database, and turned into bytes and back. */
const SECRETS: readonly { readonly name: string; readonly of: (s: DeploymentSecrets) => Uint8Array }[] = [
  { name: "token-key", of: (s) => s.keys.token },
  { name: "encryption-key", of: (s) => s.keys.encryption },
  { name: "ca-certificate", of: (s) => Buffer.from(s.ca.cert, "utf8") },
  { name: "ca-private-key", of: (s) => Buffer.from(s.ca.key, "utf8") },
  { name: "controller-client-certificate", of: (s) => Buffer.from(s.client.cert, "utf8") },
  { name: "controller-client-private-key", of: (s) => Buffer.from(s.client.key, "utf8") },
];

/** What {@link establishDeploymentSecrets} found. */
export interface EstablishedSecrets {
  readonly secrets: DeploymentSecrets;
  /** True when this call stored them (the database held none); false when another controller had. */
  readonly stored: boolean;
}

/**
 * The deployment's secrets: opened from the database, or, when it holds none, this node's stored
 * there first (see {@link storeSealedSecretsUnlessPresent} for two nodes doing so at once). Rejects
 * with a one-line {@link ControllerStartError} when the deployment key does not open them, when the
 * stored set is incomplete, or when APS_TOKEN_KEY / APS_ENCRYPTION_KEY name a key other than the
 * stored one (the variables would otherwise be silently ignored).
 */
export async function establishDeploymentSecrets(
  db: Db,
  deploymentKey: DeploymentKey,
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<EstablishedSecrets> {
  const stored = await readSealedSecrets(db);
  let result: EstablishedSecrets;
  if (stored.size > 0) {
    result = { secrets: openDeploymentSecrets(stored, deploymentKey), stored: false };
  } else {
    const ours = await secretsOfThisNode(dataDir, env);
    const won = await storeSealedSecretsUnlessPresent(db, sealDeploymentSecrets(ours, deploymentKey));
    const secrets = openDeploymentSecrets(won, deploymentKey);
    result = { secrets, stored: sameSecrets(secrets, ours) };
  }
  checkKeyVariables(result.secrets.keys, dataDir, env);
  return result;
}

/** Opens a stored set; what the deployment key does not open, or a set with a part missing, is a start error of one line. */
export function openDeploymentSecrets(sealed: SealedSecrets, deploymentKey: DeploymentKey): DeploymentSecrets {
  const missing = SECRETS.filter((s) => !sealed.has(s.name)).map((s) => s.name);
  if (missing.length > 0) {
    throw new ControllerStartError(
      `the database holds an incomplete set of the deployment's keys (${missing.join(", ")} missing); restore the deployment_secrets table from a backup`,
      "deployment-key-unusable",
    );
  }
  const open = (name: string): Buffer => {
    try {
      return deploymentKey.open(name, sealed.get(name)!);
    } catch (error) {
      if (!(error instanceof SealedSecretError)) throw error;
      throw new ControllerStartError(
        "the deployment key does not open the keys stored in the database: it is not the key they were sealed with (nothing was changed)",
        "deployment-key-wrong",
      );
    }
  };
  const secrets: DeploymentSecrets = {
    keys: { token: open("token-key"), encryption: open("encryption-key") },
    ca: { cert: open("ca-certificate").toString("utf8"), key: open("ca-private-key").toString("utf8") },
    client: {
      cert: open("controller-client-certificate").toString("utf8"),
      key: open("controller-client-private-key").toString("utf8"),
    },
  };
  if (
    secrets.keys.token.length !== 32 ||
    secrets.keys.encryption.length !== 32 ||
    !isIssuedBy(secrets.client.cert, secrets.ca.cert)
  ) {
    throw new ControllerStartError(
      "the deployment's keys stored in the database open but do not fit together (a key is not 32 bytes, or the CA did not issue the client certificate)",
      "deployment-key-unusable",
    );
  }
  return secrets;
}

/** Each secret sealed under its name. */
function sealDeploymentSecrets(secrets: DeploymentSecrets, deploymentKey: DeploymentKey): SealedSecrets {
  return new Map(SECRETS.map((s) => [s.name, deploymentKey.seal(s.name, s.of(secrets))]));
}

/** Whether two sets are the same secrets, byte for byte. */
export function sameSecrets(a: DeploymentSecrets, b: DeploymentSecrets): boolean {
  return SECRETS.every((s) => Buffer.from(s.of(a)).equals(Buffer.from(s.of(b))));
}

/**
 * The keys this node would bring to a new deployment: what its environment and data folder hold
 * (read, never created there), and new ones, in memory, for what they lack. A client
 * certificate the folder's CA did not issue is replaced by one it did.
 */
async function secretsOfThisNode(dataDir: string, env: NodeJS.ProcessEnv): Promise<DeploymentSecrets> {
  const keys = existingKeys(dataDir, env);
  const tls = existingControllerTls(dataDir);
  const ca = tls.ca ?? (await createCertificateAuthority());
  const client = tls.client ?? (await issueControllerClientCertificate(ca));
  return { keys: { token: keys.token ?? randomBytes(32), encryption: keys.encryption ?? randomBytes(32) }, ca, client };
}

/** APS_TOKEN_KEY / APS_ENCRYPTION_KEY, when set, must be the stored keys: the stored ones are used, and a variable that says otherwise is a mistake to stop at. */
export function checkKeyVariables(keys: ControllerKeys, dataDir: string, env: NodeJS.ProcessEnv = process.env): void {
  const files = keyFiles(dataDir);
  for (const which of ["token", "encryption"] as const) {
    const variable = files[which].variable;
    const value = env[variable];
    if (value && !Buffer.from(value, "base64").equals(Buffer.from(keys[which]))) {
      throw new ControllerStartError(
        `${variable} is not the deployment's ${which} key stored in the database; unset it: with a deployment key every controller uses the stored keys`,
        "deployment-key-unusable",
      );
    }
  }
}
