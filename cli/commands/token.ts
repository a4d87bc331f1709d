import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Argv } from "yargs";
import type { Command, CommonOptions } from "../command-context.ts";

interface TokenArgs extends CommonOptions {
  account?: string;
  user?: string;
  data: string;
  expires?: string;
}

const builder = (y: Argv<CommonOptions>): Argv<TokenArgs> =>
  y
    .option("account", { type: "string", describe: "Account id the token acts for (none: the anonymous token)." })
    .option("user", { type: "string", describe: "User id within that account." })
    .option("data", { type: "string", default: ".aps-data", describe: "The controller's data folder (its token key is there)." })
    .option("expires", { type: "string", describe: 'Lifetime such as "12h" or "30d" (default: none).' });

export const tokenCommand: Command<TokenArgs> = (context) => ({
  command: "token",
  describe: "Mint an APS-Token for an account (and user) of the controller whose data folder is given.",
  builder,
  handler: (args) =>
    context.run(async () => {
      const dataDir = resolve(context.cwd, String(args.data));
      // A token signed with a key minted here would be refused by the controller: never mint one.
      if (!process.env.APS_TOKEN_KEY && !existsSync(join(dataDir, "keys", "token.key"))) {
        context.io.err(`aps-gen token: ${String(args.data)} is not a controller's data folder (it has no keys/token.key); give --data the folder "aps-gen serve" uses`);
        return 2;
      }
      const { loadKeys } = await import("../../runtime/controller/support/data-directory.ts");
      const { TokenService } = await import("../../runtime/controller/auth/tokens.ts");
      const keys = loadKeys(dataDir);
      const token = await new TokenService(keys.token).mint({ ...(args.account ? { accountId: String(args.account) } : {}), ...(args.user ? { userId: String(args.user) } : {}) }, args.expires ? String(args.expires) : undefined);
      context.io.out(token);
      return 0;
    }),
});
