/**
 * A node's data folder once the deployment's keys come from the database (shared-keys.ts): it
 * keeps what is the node's own (its server certificate for its host names, the admin token, the
 * CA certificate people trust) and no second copy of the deployment's secrets. Secret files that
 * are NOT the deployment's (a node that ran on its own before, with keys of its own) are moved
 * aside into `<data>/superseded/<time>/`, never deleted: they may be the only key to something
 * sealed elsewhere (an embedded database of that folder). Files equal to the deployment's (the
 * node whose keys the deployment started from) stay where they are.
 */
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { controllerTlsFiles, ensureNodeTls, type ControllerTls } from "../../common/certificate-authority.ts";
import { TokenService } from "../auth/tokens.ts";
import { adminTokenPath } from "../bootstrap.ts";
import { keyFiles } from "../support/data-directory.ts";
import type { DeploymentSecrets } from "./shared-keys.ts";

/** What {@link adoptDeploymentSecrets} did to the folder. */
export interface AdoptedFolder {
  readonly tls: ControllerTls;
  /** Files moved aside, as paths relative to the data folder (empty when none). */
  readonly superseded: readonly string[];
  /** Where they went (undefined when nothing was moved). */
  readonly supersededDir?: string;
}

/**
 * Brings `dataDir` in line with the deployment's secrets: differing secret files moved aside (an
 * admin token the deployment's token key does not verify among them, so that a new one is
 * written), the CA certificate written, and the node's server certificate for `hosts` kept or
 * issued by the deployment's CA (`names`: see ensureNodeTls).
 */
export async function adoptDeploymentSecrets(
  dataDir: string,
  secrets: DeploymentSecrets,
  hosts: readonly string[],
  names: "replace" | "extend",
  now: Date = new Date(),
): Promise<AdoptedFolder> {
  const differing = await filesNotOfTheDeployment(dataDir, secrets);
  let supersededDir: string | undefined;
  if (differing.length > 0) {
    supersededDir = join(dataDir, "superseded", now.toISOString().replace(/[:.]/g, "-"));
    for (const path of differing) {
      const target = join(supersededDir, relative(dataDir, path));
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      renameSync(path, target);
    }
  }
  const tls = await ensureNodeTls(dataDir, secrets, hosts, names);
  return { tls, superseded: differing.map((p) => relative(dataDir, p)), ...(supersededDir ? { supersededDir } : {}) };
}

/** The secret files (and the CA certificate and admin token) of the folder that are not the deployment's. */
async function filesNotOfTheDeployment(dataDir: string, secrets: DeploymentSecrets): Promise<string[]> {
  const keys = keyFiles(dataDir);
  const tls = controllerTlsFiles(dataDir);
  const asKey = (text: string) => Buffer.from(text.trim(), "base64");
  const checks: { path: string; same: (text: string) => boolean | Promise<boolean> }[] = [
    { path: keys.token.path, same: (t) => asKey(t).equals(Buffer.from(secrets.keys.token)) },
    { path: keys.encryption.path, same: (t) => asKey(t).equals(Buffer.from(secrets.keys.encryption)) },
    { path: tls.caCert, same: (t) => t === secrets.ca.cert },
    { path: tls.caKey, same: (t) => t === secrets.ca.key },
    { path: tls.clientCert, same: (t) => t === secrets.client.cert },
    { path: tls.clientKey, same: (t) => t === secrets.client.key },
    {
      path: adminTokenPath(dataDir),
      same: (t) =>
        new TokenService(secrets.keys.token).verify(t.trim()).then(
          () => true,
          () => false,
        ),
    },
  ];
  const differing: string[] = [];
  for (const check of checks) {
    if (existsSync(check.path) && !(await check.same(readFileSync(check.path, "utf8")))) differing.push(check.path);
  }
  return differing;
}
