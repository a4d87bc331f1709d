import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Argv } from "yargs";
import type { DeploymentKey } from "../../runtime/controller/deployment/deployment-key.ts";
import type { Command, CommonOptions } from "../options/command-context.ts";
import { databaseUrlOf } from "../options/database-url.ts";

interface TokenArgs extends CommonOptions {
  account?: string;
  user?: string;
  data: string;
  expires?: string;
  "database-url"?: string;
  "deployment-key-file"?: string;
}

const builder = (y: Argv<CommonOptions>): Argv<TokenArgs> =>
  y
    .option("account", { type: "string", describe: "Account id the token acts for (none: the anonymous token)." })
    .option("user", { type: "string", describe: "User id within that account." })
    .option("data", {
      type: "string",
      default: ".aps-data",
      describe: "The controller's data folder (its token key is there).",
    })
    .option("expires", { type: "string", describe: 'Lifetime such as "12h" or "30d" (default: none).' })
    .option("deployment-key-file", {
      type: "string",
      describe:
        "With a deployment key (this file, or $APS_DEPLOYMENT_KEY), sign with the deployment's token key from the database instead.",
    })
    .option("database-url", {
      type: "string",
      describe: "The deployment's PostgreSQL URL, with a deployment key (default: $DATABASE_URL).",
    });

export const tokenCommand: Command<TokenArgs> = (context) => ({
  command: "token",
  describe:
    "Mint an APS-Token for an account (and user) of the controller whose data folder is given, or of the deployment whose key is given.",
  builder,
  handler: (args) =>
    context.run(async () => {
      const fail = (message: string, code: number) => {
        context.io.err(`aps-gen token: ${message}`);
        return code;
      };
      const tokenKey = await deploymentTokenKey(args, context.cwd);
      if (typeof tokenKey === "object" && "failure" in tokenKey) return fail(tokenKey.failure, tokenKey.code);
      const dataDir = resolve(context.cwd, String(args.data));
      // A token signed with a key minted here would be refused by the controller: never mint one.
      if (!tokenKey && !process.env.APS_TOKEN_KEY && !existsSync(join(dataDir, "keys", "token.key"))) {
        return fail(
          `${String(args.data)} is not a controller's data folder (it has no keys/token.key); give --data the folder "aps-gen serve" uses, or, where the keys are the deployment's, the deployment key and database`,
          2,
        );
      }
      const { loadKeys } = await import("../../runtime/controller/support/data-directory.ts");
      const { TokenService } = await import("../../runtime/controller/auth/tokens.ts");
      const key = tokenKey ?? loadKeys(dataDir).token;
      const token = await new TokenService(key).mint(
        {
          ...(args.account ? { accountId: String(args.account) } : {}),
          ...(args.user ? { userId: String(args.user) } : {}),
        },
        args.expires ? String(args.expires) : undefined,
      );
      context.io.out(token);
      return 0;
    }),
});

/**
 * The deployment's token key, opened from the database, when a deployment key is given; undefined
 * without one (the data folder's key is used). Failures as one line and an exit code: 1 when the
 * deployment refuses (wrong key, not set up), 2 otherwise.
 */
async function deploymentTokenKey(
  args: TokenArgs,
  cwd: string,
): Promise<Uint8Array | undefined | { failure: string; code: number }> {
  const { deploymentKeyOf, deploymentFailureCode } = await import("../options/deployment-key-option.ts");
  const { DeploymentKeyFormatError } = await import("../../runtime/controller/deployment/deployment-key.ts");
  let deploymentKey: DeploymentKey | undefined;
  try {
    deploymentKey = deploymentKeyOf(args, cwd);
  } catch (error) {
    if (!(error instanceof DeploymentKeyFormatError)) throw error;
    return { failure: error.message, code: 2 };
  }
  if (!deploymentKey) return undefined;
  const databaseUrl = databaseUrlOf(args);
  if (!databaseUrl)
    return {
      failure:
        "with a deployment key the token key is the deployment's, in its database: give --database-url or DATABASE_URL",
      code: 2,
    };
  const { withStoredSecrets } = await import("../../runtime/controller/join.ts");
  const { ControllerStartError } = await import("../../runtime/controller/support/start-errors.ts");
  try {
    return await withStoredSecrets(
      databaseUrl,
      resolve(cwd, args.data),
      deploymentKey,
      async (_db, secrets) => secrets.keys.token,
    );
  } catch (error) {
    if (!(error instanceof ControllerStartError)) throw error;
    return { failure: error.message, code: deploymentFailureCode(error) };
  }
}
