import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { DeploymentKey, DeploymentKeyFormatError } from "../../runtime/controller/deployment/deployment-key.ts";
import type { ControllerStartError } from "../../runtime/controller/support/start-errors.ts";

/** The environment variable that holds the deployment key itself (base64), when no file is named. */
export const DEPLOYMENT_KEY_VARIABLE = "APS_DEPLOYMENT_KEY";

/**
 * The deployment key a command runs with: the file of `--deployment-key-file` (or
 * `APS_GEN_DEPLOYMENT_KEY_FILE`, or the config file) when given, else `$APS_DEPLOYMENT_KEY`, else
 * none. The named file wins, as the command line wins over the environment elsewhere; a file is
 * the better home for a secret (a variable shows in `/proc/<pid>/environ` to the same user and is
 * inherited by every child). Throws {@link DeploymentKeyFormatError} (one line) when the file
 * cannot be read or either holds no key.
 */
export function deploymentKeyOf(
  options: { readonly "deployment-key-file"?: string },
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): DeploymentKey | undefined {
  const file = options["deployment-key-file"];
  if (file) {
    let text: string;
    try {
      text = readFileSync(resolve(cwd, file), "utf8");
    } catch (error) {
      throw new DeploymentKeyFormatError(
        `cannot read the deployment key file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    return DeploymentKey.fromText(text, file);
  }
  const fromEnv = env[DEPLOYMENT_KEY_VARIABLE];
  return fromEnv ? DeploymentKey.fromText(fromEnv, DEPLOYMENT_KEY_VARIABLE) : undefined;
}

/**
 * The exit code of a command (`join`, `token`) that asked the deployment for its keys and was
 * refused: 1 when the deployment answered no (the key does not open its keys, or it is not set
 * up yet: migrations pending, no keys stored), 2 when it could not be asked or used.
 */
export function deploymentFailureCode(error: ControllerStartError): 1 | 2 {
  return error.reason === "deployment-key-wrong" ||
    error.reason === "deployment-keys-absent" ||
    error.reason === "migrations-pending"
    ? 1
    : 2;
}
