/**
 * `aps-gen join`: makes a data folder ready for one more controller of a deployment whose keys
 * are in its PostgreSQL database, sealed under the deployment key (deployment/shared-keys.ts).
 * It checks the database is migrated and holds the keys, opens them with the deployment key (so
 * a wrong key is told now, not at the node's first start), then writes what the node keeps of
 * its own: its server certificate from the deployment's CA for its host names, the CA
 * certificate, and the provider administrator's token. The deployment's secrets are not written
 * to the folder. It changes nothing in the database.
 */
import { existsSync, mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { TokenService } from "./auth/tokens.ts";
import { adminTokenPath, findProvider, writeAdminToken } from "./bootstrap.ts";
import type { DeploymentKey } from "./deployment/deployment-key.ts";
import { adoptDeploymentSecrets } from "./deployment/node-data-folder.ts";
import { readSealedSecrets } from "./deployment/secret-store.ts";
import { checkKeyVariables, openDeploymentSecrets, type DeploymentSecrets } from "./deployment/shared-keys.ts";
import { migrationState } from "./store/migration-state.ts";
import { openDatabase, type Db } from "./store/open-database.ts";
import { holdPrivateUmask } from "./support/private-files.ts";
import { redactedUrl } from "./support/redacted-url.ts";
import { ControllerStartError } from "./support/start-errors.ts";

/** What {@link joinDeployment} wrote. */
export interface JoinReport {
  /** The names the node's server certificate carries. */
  readonly hosts: readonly string[];
  readonly serverCertPath: string;
  readonly caCertPath: string;
  /** Undefined when no controller has created the provider account yet (the node's first start writes it then). */
  readonly adminTokenPath?: string;
  /** Files of the folder that were not the deployment's, moved aside (relative to the folder), and where. */
  readonly superseded: readonly string[];
  readonly supersededDir?: string;
}

/** The names every node's certificate carries besides the ones it is given: what a client on the node itself uses. */
const LOCAL_NAMES = ["localhost", "127.0.0.1"];

/**
 * Joins `dataDir` to the deployment on `databaseUrl`. Rejects with a one-line
 * {@link ControllerStartError}: `database-unreachable`; `migrations-pending` or
 * `deployment-keys-absent` (the deployment is not set up: run `aps-gen migrate`, start the first
 * controller with the deployment key); `deployment-key-wrong`; `deployment-key-unusable`.
 */
export async function joinDeployment(options: {
  readonly databaseUrl: string;
  readonly dataDir: string;
  readonly deploymentKey: DeploymentKey;
  readonly hosts: readonly string[];
}): Promise<JoinReport> {
  const dataDir = resolve(options.dataDir);
  const hosts = [...new Set([...options.hosts, ...LOCAL_NAMES])];
  const releaseUmask = holdPrivateUmask();
  try {
    return await withStoredSecrets(options.databaseUrl, dataDir, options.deploymentKey, async (db, secrets) => {
      checkKeyVariables(secrets.keys, dataDir);
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      const folder = await adoptDeploymentSecrets(dataDir, secrets, hosts, "replace");
      const provider = await findProvider(db);
      const tokenPath = adminTokenPath(dataDir);
      // Kept when there: adoptDeploymentSecrets has moved aside one that the deployment's key does not verify.
      if (provider && !existsSync(tokenPath))
        await writeAdminToken(tokenPath, new TokenService(secrets.keys.token), provider);
      return {
        hosts,
        serverCertPath: resolve(dataDir, "tls", "server.crt"),
        caCertPath: folder.tls.caCertPath,
        ...(provider ? { adminTokenPath: tokenPath } : {}),
        superseded: folder.superseded,
        ...(folder.supersededDir ? { supersededDir: folder.supersededDir } : {}),
      };
    });
  } finally {
    releaseUmask();
  }
}

/**
 * Opens the database (no migration), checks it is migrated and holds the deployment's keys, opens
 * them with `deploymentKey` and runs `use`; closes the database after. For `join`, and for
 * `token` on a node whose keys are the deployment's.
 */
export async function withStoredSecrets<T>(
  databaseUrl: string,
  dataDir: string,
  deploymentKey: DeploymentKey,
  use: (db: Db, secrets: DeploymentSecrets) => Promise<T>,
): Promise<T> {
  const where = redactedUrl(databaseUrl);
  const unreachable = (error: unknown) =>
    new ControllerStartError(
      `cannot reach the database at ${where}: ${(error as Error).message}`,
      "database-unreachable",
    );
  const database = await openDatabase({ dataDir, url: databaseUrl, migrate: false }).catch((error: unknown) =>
    Promise.reject(unreachable(error)),
  );
  try {
    const state = await migrationState(database.db).catch((error: unknown) => Promise.reject(unreachable(error)));
    if (state.pending > 0) {
      throw new ControllerStartError(
        `the database at ${where} has ${state.pending} of ${state.total} migrations not applied: run \`aps-gen migrate\`, then start the first controller with the deployment key`,
        "migrations-pending",
      );
    }
    const sealed = await readSealedSecrets(database.db);
    if (sealed.size === 0) {
      throw new ControllerStartError(
        `the database at ${where} holds no deployment keys yet: start the first controller with \`aps-gen serve --deployment-key-file FILE\` (it stores its keys there), then join`,
        "deployment-keys-absent",
      );
    }
    return await use(database.db, openDeploymentSecrets(sealed, deploymentKey));
  } finally {
    await database.close();
  }
}
