import { resolve } from "node:path";
import type { Argv } from "yargs";
import type { Command, CommonOptions } from "../options/command-context.ts";
import { databaseUrlOf } from "../options/database-url.ts";

interface MigrateArgs extends CommonOptions {
  data: string;
  "database-url"?: string;
}

const builder = (y: Argv<CommonOptions>): Argv<MigrateArgs> =>
  y
    .option("data", {
      type: "string",
      default: ".aps-data",
      describe: "Data folder (its embedded database is migrated when no database URL is given).",
    })
    .option("database-url", {
      type: "string",
      describe: "PostgreSQL URL (default: $DATABASE_URL, else the embedded PGlite of --data).",
    });

export const migrateCommand: Command<MigrateArgs> = (context) => ({
  command: "migrate",
  describe: "Apply the controller's database migrations without serving (a deployment step before serve --no-migrate).",
  builder,
  handler: (args) =>
    context.run(async () => {
      const { migrateDatabase } = await import("../../runtime/controller/migrate.ts");
      const { ControllerStartError } = await import("../../runtime/controller/support/start-errors.ts");
      const url = databaseUrlOf(args);
      try {
        const r = await migrateDatabase({
          dataDir: resolve(context.cwd, args.data),
          ...(url ? { databaseUrl: url } : {}),
        });
        const where = r.database === "postgres" ? "PostgreSQL" : `embedded database in ${args.data}`;
        context.io.out(
          r.applied === 0
            ? `✓ ${where}: all ${r.total} migrations already applied`
            : `✓ ${where}: applied ${r.applied} of ${r.total} migrations`,
        );
        return 0;
      } catch (error) {
        if (!(error instanceof ControllerStartError)) throw error;
        context.io.err(`aps-gen migrate: ${error.message}`);
        return 2;
      }
    }),
});
