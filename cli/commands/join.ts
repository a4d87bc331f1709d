import { relative, resolve } from "node:path";
import type { Argv } from "yargs";
import type { DeploymentKey } from "../../runtime/controller/deployment/deployment-key.ts";
import type { Command, CommonOptions } from "../options/command-context.ts";
import { databaseUrlOf } from "../options/database-url.ts";

interface JoinArgs extends CommonOptions {
  data: string;
  "database-url"?: string;
  "deployment-key-file"?: string;
  host?: string[];
}

const builder = (y: Argv<CommonOptions>): Argv<JoinArgs> =>
  y
    .option("database-url", { type: "string", describe: "The deployment's PostgreSQL URL (default: $DATABASE_URL)." })
    .option("data", {
      type: "string",
      default: ".aps-data",
      describe: "This node's data folder (created when absent).",
    })
    .option("deployment-key-file", {
      type: "string",
      describe: "File holding the deployment key (default: $APS_DEPLOYMENT_KEY).",
    })
    .option("host", {
      type: "string",
      array: true,
      describe:
        "A name or address clients reach this node by, for its server certificate (repeatable; localhost and 127.0.0.1 always).",
    });

/**
 * `aps-gen join`: one command for a new controller of a deployment whose keys the database holds
 * sealed (runtime/controller/join.ts). Exit 0 joined; 1 the deployment key does not open the keys,
 * or the deployment is not set up (not migrated, no keys stored yet); 2 bad usage or an unusable
 * environment (no database URL or key, a key that is not one, a database that cannot be reached).
 */
export const joinCommand: Command<JoinArgs> = (context) => ({
  command: "join",
  describe:
    "Make a data folder ready for one more controller of a deployment whose keys are sealed in its PostgreSQL database.",
  builder,
  handler: (args) =>
    context.run(async () => {
      const { ExitCode } = await import("../output/console.ts");
      const fail = (message: string, code: number) => {
        context.io.err(`aps-gen join: ${message}`);
        return code;
      };
      const databaseUrl = databaseUrlOf(args);
      if (!databaseUrl)
        return fail(
          "name the deployment's PostgreSQL database with --database-url or DATABASE_URL (the embedded database serves one controller only)",
          ExitCode.unusable,
        );
      const { deploymentKeyOf, deploymentFailureCode, DEPLOYMENT_KEY_VARIABLE } = await import(
        "../options/deployment-key-option.ts"
      );
      const { DeploymentKeyFormatError } = await import("../../runtime/controller/deployment/deployment-key.ts");
      let deploymentKey: DeploymentKey | undefined;
      try {
        deploymentKey = deploymentKeyOf(args, context.cwd);
      } catch (error) {
        if (!(error instanceof DeploymentKeyFormatError)) throw error;
        return fail(error.message, ExitCode.unusable);
      }
      if (!deploymentKey)
        return fail(
          `give the deployment key: --deployment-key-file FILE, or ${DEPLOYMENT_KEY_VARIABLE}`,
          ExitCode.unusable,
        );
      const { joinDeployment } = await import("../../runtime/controller/join.ts");
      const { ControllerStartError } = await import("../../runtime/controller/support/start-errors.ts");
      const { redactedUrl } = await import("../../runtime/controller/support/redacted-url.ts");
      const dataDir = resolve(context.cwd, args.data);
      let report: Awaited<ReturnType<typeof joinDeployment>>;
      try {
        report = await joinDeployment({ databaseUrl, dataDir, deploymentKey, hosts: args.host ?? [] });
      } catch (error) {
        if (!(error instanceof ControllerStartError)) throw error;
        return fail(error.message, deploymentFailureCode(error));
      }
      // Relative to the working folder when inside it, as given; else in full.
      const shown = (path: string) =>
        relative(context.cwd, path).startsWith("..") ? path : relative(context.cwd, path) || ".";
      const { io } = context;
      io.out(`✓ joined the deployment on ${redactedUrl(databaseUrl)}: the deployment key opens its keys`);
      io.out(
        `  server certificate for ${report.hosts.join(", ")}: ${shown(report.serverCertPath)} (issued by the deployment's CA)`,
      );
      io.out(`  CA certificate: ${shown(report.caCertPath)}`);
      io.out(
        report.adminTokenPath
          ? `  admin token in ${shown(report.adminTokenPath)}`
          : "  no provider account yet: the admin token is written at this node's first start",
      );
      if (report.supersededDir)
        io.out(
          `  moved aside, not the deployment's keys: ${report.superseded.join(", ")} → ${shown(report.supersededDir)}`,
        );
      const keyOption = args["deployment-key-file"] ? ` --deployment-key-file ${args["deployment-key-file"]}` : "";
      io.out(
        "start this node with the same --types (and a --host/--port the load balancer reaches) as the other controllers:",
      );
      io.out(
        `  aps-gen serve --data ${args.data} --database-url ${redactedUrl(databaseUrl)}${keyOption} --no-migrate${keyOption ? "" : ` (with ${DEPLOYMENT_KEY_VARIABLE} set as now)`}`,
      );
      return ExitCode.ok;
    }),
});
