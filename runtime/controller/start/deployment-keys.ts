import type { Logger } from "pino";
import type { ControllerTls } from "../../common/certificate-authority.ts";
import type { DeploymentKey } from "../deployment/deployment-key.ts";
import { adoptDeploymentSecrets } from "../deployment/node-data-folder.ts";
import { establishDeploymentSecrets } from "../deployment/shared-keys.ts";
import type { Db } from "../store/open-database.ts";
import type { ControllerKeys } from "../support/data-directory.ts";
import { ControllerStartError } from "../support/start-errors.ts";

/**
 * The keys and TLS identity of a controller started with a deployment key: the deployment's, from
 * the database (stored there from this node's when it is the first), and this node's own server
 * certificate issued by the deployment's CA. Secret files of the data folder that are not the
 * deployment's are moved aside and logged (deployment/node-data-folder.ts).
 */
export async function deploymentKeysOfNode(
  db: Db,
  deploymentKey: DeploymentKey,
  dataDir: string,
  hosts: readonly string[],
  logger: Logger,
): Promise<{ keys: ControllerKeys; tls: ControllerTls }> {
  const { secrets, stored } = await establishDeploymentSecrets(db, deploymentKey, dataDir);
  const folder = await adoptDeploymentSecrets(dataDir, secrets, hosts, "extend");
  if (stored)
    logger.info(
      "stored this node's keys and CA in the database, sealed under the deployment key: every controller started with that key on this database uses them",
    );
  if (folder.superseded.length > 0)
    logger.warn(
      { superseded: folder.superseded, movedTo: folder.supersededDir },
      "files of the data folder that are not the deployment's keys were moved aside",
    );
  return { keys: secrets.keys, tls: folder.tls };
}

/**
 * The embedded database is one process's, so there is nothing to share keys with, and a key
 * sealed in the data folder's own database would sit beside the files it stands in for. A
 * deployment key there is a mistake worth a refusal rather than a note: ignoring it would leave
 * an operator believing the keys were shared.
 */
export function refuseDeploymentKeyOnEmbeddedDatabase(): ControllerStartError {
  return new ControllerStartError(
    "a deployment key shares the keys of controllers on one PostgreSQL database; the embedded database serves one controller, whose keys stay in its data folder: give --database-url, or leave out the deployment key",
    "deployment-key-unusable",
  );
}
