import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Argv } from "yargs";
import type { Command, CommonOptions } from "../options/command-context.ts";
import type { Console } from "../output/console.ts";
import type { ServeOptions } from "../serve/serve-model.ts";
import { databaseUrlOf } from "../options/database-url.ts";
import type { WorkerRole } from "../serve/workers/messages.ts";
import { untilStopSignal } from "../serve/workers/stop-signal.ts";

type ServeArgs = CommonOptions & ServeOptions;

const builder = (y: Argv<CommonOptions>): Argv<ServeArgs> =>
  y
    .option("host", { type: "string", default: "127.0.0.1", describe: "Address to listen on." })
    .option("port", { type: "number", default: 8443, describe: "Port to listen on (0 picks a free one)." })
    .option("data", {
      type: "string",
      default: ".aps-data",
      describe: "Data folder: keys, TLS files, admin token, embedded database.",
    })
    .option("database-url", {
      type: "string",
      describe: "PostgreSQL URL (default: $DATABASE_URL, else embedded PGlite).",
    })
    .option("read-database-url", {
      type: "string",
      array: true,
      describe:
        "A streaming replica of the PostgreSQL database (repeatable): GETs and lists of resources read from it once it has replayed the caller's writes, else from the primary.",
    })
    .option("read-max-lag", {
      type: "number",
      default: 1,
      describe:
        "Seconds a read replica may be behind the primary; one further behind, or unreachable, is skipped until it catches up.",
    })
    .option("jwks-url", { type: "string", describe: "Also accept APS tokens signed by this external issuer's JWKS." })
    .option("jwks-issuer", {
      type: "string",
      describe: "The external issuer's iss claim (default: the JWKS URL's origin).",
    })
    .option("event-attempts", {
      type: "number",
      default: 10,
      describe: "Failed deliveries of an event notification before it goes to the dead-letter list.",
    })
    .option("event-retry", {
      type: "number",
      default: 5,
      describe: "Seconds before the first retry of a failed delivery; doubled for each further one (at most 600).",
    })
    .option("endpoint-timeout", {
      type: "number",
      default: 30,
      describe: "Seconds to wait for an application endpoint before answering 504.",
    })
    .option("commit-margin", {
      type: "number",
      default: 20,
      describe:
        "Seconds allowed for the commit after an application's answer: a crashed process's resource claims and provisioning intents are taken over after --endpoint-timeout plus this.",
    })
    .option("workers", {
      type: "number",
      describe:
        "Processes serving on the port, on PostgreSQL (default: the machine's available parallelism); the embedded database is served by one.",
    })
    .option("deployment-key-file", {
      type: "string",
      describe:
        "File holding the deployment key (default: $APS_DEPLOYMENT_KEY): keys and CA sealed in the PostgreSQL database, shared by every controller on it.",
    })
    .option("console", {
      type: "boolean",
      default: true,
      describe: "Serve the browser console at /console/ (signed in with a token); --no-console turns it off.",
    })
    .option("migrate", {
      type: "boolean",
      default: true,
      describe:
        "Apply pending migrations before serving; --no-migrate refuses to start while any is pending (run aps-gen migrate first).",
    });

export const serveCommand: Command<ServeArgs> = (context) => ({
  command: "serve",
  describe:
    "Run the controller over HTTPS for the declarations (PGlite in the data folder unless a database URL is given).",
  builder,
  handler: (args) => context.run(() => runServe(args, context.io, context.cwd, context.ownProcess)),
});

async function runServe(options: ServeArgs, io: Console, cwd: string, ownProcess: boolean): Promise<number> {
  const { workerRole } = await import("../serve/workers/messages.ts");
  const role = workerRole();
  if (role) return runWorker(options, io, cwd, role);
  const { compileCleanOrReport, serveInputs } = await import("../output/compile-report.ts");
  const { ExitCode, plural } = await import("../output/console.ts");
  const { workerPlan } = await import("../serve/workers/worker-plan.ts");
  const databaseUrl = databaseUrlOf(options);
  // Read once here, so a key that is not one is told in one line before anything starts.
  const keyProblem = await deploymentKeyProblem(options, cwd, Boolean(databaseUrl));
  if (keyProblem) {
    io.err(`aps-gen serve: ${keyProblem}`);
    return ExitCode.unusable;
  }
  if (options["read-database-url"]?.length && !databaseUrl) {
    const { refuseReadReplicasOnEmbeddedDatabase } = await import("../../runtime/controller/start/read-replicas.ts");
    io.err(`aps-gen serve: ${refuseReadReplicasOnEmbeddedDatabase().message}`);
    return ExitCode.unusable;
  }
  const plan = workerPlan(options.workers, Boolean(databaseUrl), ownProcess);
  if ("error" in plan) {
    io.err(`aps-gen serve: ${plan.error}`);
    return ExitCode.unusable;
  }
  if (plan.note) io.err(plan.note);
  const { inputs, looked } = serveInputs(options, cwd);
  if (looked) io.err(looked);
  const result = compileCleanOrReport("serve", ExitCode.findings, options, io, cwd, inputs);
  if (typeof result === "number") return result;
  // Say what is coming before the slow part: a first start creates the embedded database.
  const firstStart = !databaseUrl && !existsSync(join(resolve(cwd, options.data), "pgdata", "PG_VERSION"));
  const processes = plan.count > 1 ? ` · ${plan.count} worker processes` : "";
  io.err(
    `starting the controller: ${plural(result.model.types.size, "type")} · ${databaseUrl ? "PostgreSQL" : firstStart ? `embedded database, created now in ${options.data} (first start: a few seconds)` : `embedded database in ${options.data}`}${processes}`,
  );
  if (plan.count > 1) {
    const { runWorkers } = await import("../serve/workers/primary.ts");
    const { sharedPort } = await import("../serve/workers/shared-port.ts");
    const { ControllerStartError } = await import("../../runtime/controller/support/start-errors.ts");
    let port: number;
    try {
      port = await sharedPort(options.host, options.port);
    } catch (error) {
      if (!(error instanceof ControllerStartError)) throw error;
      io.err(`aps-gen serve: ${error.message}`);
      return ExitCode.unusable;
    }
    return runWorkers(plan.count, port, io, (first) => {
      io.err(
        `✓ controller on ${first.url} · ${plural(result.model.types.size, "type")} · database ${first.database}${processes}`,
      );
      io.err(`  CA certificate: ${first.caCertPath} (curl --cacert ${first.caCertPath} ...)`);
      io.err(`  provider account ${first.accountId}; admin token in ${first.adminTokenPath}`);
    });
  }
  const { serveModel } = await import("../serve/serve-model.ts");
  const { ControllerStartError } = await import("../../runtime/controller/support/start-errors.ts");
  let controller: Awaited<ReturnType<typeof serveModel>>;
  try {
    controller = await serveModel(result.model, { ...options, data: resolve(cwd, options.data) }, cwd);
  } catch (error) {
    if (!(error instanceof ControllerStartError)) throw error;
    io.err(`aps-gen serve: ${error.message}`);
    return ExitCode.unusable;
  }
  io.err(
    `✓ controller on ${controller.url} · ${plural(result.model.types.size, "type")} · database ${controller.database}`,
  );
  io.err(`  CA certificate: ${controller.caCertPath} (curl --cacert ${controller.caCertPath} ...)`);
  io.err(`  provider account ${controller.provider.accountId}; admin token in ${controller.provider.adminTokenPath}`);
  await untilStopSignal();
  io.err("stopping: finishing running requests");
  await controller.close();
  return ExitCode.ok;
}

/**
 * A worker of `serve --workers N` (cli/serve-workers/): the declarations the primary checked,
 * compiled again here (quietly), served until the primary says stop. Only slot 1's first start
 * applies migrations; a start error is one line, as for `serve` alone, and ends the process.
 */
async function runWorker(options: ServeArgs, io: Console, cwd: string, role: WorkerRole): Promise<number> {
  const { serveAsWorker, stopRequested } = await import("../serve/workers/worker.ts");
  const stop = stopRequested();
  const { WorkerCallLog, primaryChannel } = await import("../serve/workers/worker-call-log.ts");
  const { compileCleanOrReport, serveInputs } = await import("../output/compile-report.ts");
  const { ExitCode } = await import("../output/console.ts");
  const result = compileCleanOrReport(
    "serve",
    ExitCode.findings,
    options,
    { out: () => {}, err: (line) => io.err(line) },
    cwd,
    serveInputs(options, cwd).inputs,
  );
  if (typeof result === "number") process.exit(result);
  const { serveModel } = await import("../serve/serve-model.ts");
  const { ControllerStartError } = await import("../../runtime/controller/support/start-errors.ts");
  const { defaultControllerLogger } = await import("../../runtime/controller/observability/controller-logger.ts");
  const serveOptions = {
    ...options,
    port: role.port,
    data: resolve(cwd, options.data),
    ...(role.migrate ? {} : { migrate: false }),
  };
  let controller: Awaited<ReturnType<typeof serveModel>>;
  try {
    controller = await serveModel(result.model, serveOptions, cwd, {
      backgroundLoops: role.loops,
      logger: defaultControllerLogger().child({ worker: role.slot }),
      // The console's live log shows the calls of every worker (cli/serve/workers/merged-call-log.ts).
      ...(options.console === false ? {} : { sharedCallLog: new WorkerCallLog(primaryChannel()) }),
    });
  } catch (error) {
    if (!(error instanceof ControllerStartError)) throw error;
    io.err(`aps-gen serve: ${error.message}`);
    process.exit(ExitCode.unusable);
  }
  await serveAsWorker(controller, role, stop);
  // The IPC channel to the primary would keep the process alive.
  process.exit(ExitCode.ok);
}

/** Why the deployment key of the options cannot be used (unreadable file, not a key, no PostgreSQL to share keys through), or undefined. */
async function deploymentKeyProblem(options: ServeArgs, cwd: string, onPostgres: boolean): Promise<string | undefined> {
  const { deploymentKeyOf } = await import("../options/deployment-key-option.ts");
  const { DeploymentKeyFormatError } = await import("../../runtime/controller/deployment/deployment-key.ts");
  try {
    if (!deploymentKeyOf(options, cwd) || onPostgres) return undefined;
    const { refuseDeploymentKeyOnEmbeddedDatabase } = await import("../../runtime/controller/start/deployment-keys.ts");
    return refuseDeploymentKeyOnEmbeddedDatabase().message;
  } catch (error) {
    if (!(error instanceof DeploymentKeyFormatError)) throw error;
    return error.message;
  }
}
