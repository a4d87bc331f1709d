import { startController, type RunningController } from "../../runtime/controller/serve.ts";
import { buildOpenApi, buildRegistry, type ApsModel } from "../../generator/index.ts";
import { loadValidators } from "../validate/load-validators.ts";
import { startPackages } from "./package-import/package-compiler.ts";
import { compileArchiveInWorker } from "./package-import/worker-compiler.ts";
import type { Logger } from "pino";
import type { SharedEndpointCallLog } from "../../runtime/controller/observability/endpoint-call-log.ts";
import { databaseUrlOf } from "../options/database-url.ts";
import { deploymentKeyOf } from "../options/deployment-key-option.ts";

/** Options of `aps-gen serve`. */
export interface ServeOptions {
  readonly host: string;
  readonly port: number;
  readonly data: string;
  readonly "database-url"?: string;
  /** Streaming replicas reads may go to (runtime/controller/store/replica-reads.ts). */
  readonly "read-database-url"?: readonly string[];
  /** Seconds a replica may be behind before it is skipped. */
  readonly "read-max-lag"?: number;
  readonly "jwks-url"?: string;
  readonly "jwks-issuer"?: string;
  /** File holding the deployment key (else `$APS_DEPLOYMENT_KEY`): keys shared through the database (cli/options/deployment-key-option.ts). */
  readonly "deployment-key-file"?: string;
  readonly "event-attempts"?: number;
  readonly "event-retry"?: number;
  readonly "endpoint-timeout"?: number;
  readonly "commit-margin"?: number;
  /** False: apply no migration, refuse to start while one is pending (`serve --no-migrate`). */
  readonly migrate?: boolean;
  /** False: no console at /console/ (`serve --no-console`). */
  readonly console?: boolean;
  /** Processes serving on the port (PostgreSQL only; default: available parallelism there, 1 on PGlite). */
  readonly workers?: number;
}

/** How this process serves when it is one of several (`serve --workers N`, cli/serve/workers/). */
export interface ServeProcessRole {
  /** False: leave the polling loops to another process (ControllerOptions.backgroundLoops). */
  readonly backgroundLoops: boolean;
  readonly logger: Logger;
  /** The console's live log merged over the workers (ControllerOptions.sharedCallLog); absent with the console off. */
  readonly sharedCallLog?: SharedEndpointCallLog;
}

/**
 * Starts the controller for a compiled model: the registry and validators are built from the
 * declarations once, here, and the controller runs on them.
 */
export async function serveModel(
  model: ApsModel,
  options: ServeOptions,
  cwd: string,
  role?: ServeProcessRole,
): Promise<RunningController> {
  const validators = await loadValidators(model);
  const databaseUrl = databaseUrlOf(options);
  const deploymentKey = deploymentKeyOf(options, cwd);
  return startController({
    types: buildRegistry(model),
    validators,
    packages: startPackages(model, cwd),
    // Packages imported while running compile in a worker thread: serving goes on meanwhile.
    compiler: compileArchiveInWorker,
    openApi: buildOpenApi(model),
    host: options.host,
    port: options.port,
    dataDir: options.data,
    ...(options.migrate === false ? { migrate: false } : {}),
    ...(options.console === false ? { console: false } : {}),
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(deploymentKey ? { deploymentKey } : {}),
    ...(options["read-database-url"]?.length ? { readDatabaseUrls: options["read-database-url"] } : {}),
    ...(options["read-max-lag"] !== undefined ? { readMaxLagMs: Math.max(0, options["read-max-lag"]) * 1000 } : {}),
    ...(options["endpoint-timeout"] !== undefined
      ? { endpointTimeoutMs: Math.max(0.1, options["endpoint-timeout"]) * 1000 }
      : {}),
    ...(options["commit-margin"] !== undefined ? { commitMarginMs: Math.max(0, options["commit-margin"]) * 1000 } : {}),
    eventDelivery: {
      ...(options["event-attempts"] !== undefined ? { maxAttempts: Math.max(1, options["event-attempts"]) } : {}),
      ...(options["event-retry"] !== undefined ? { retryBaseSeconds: Math.max(0, options["event-retry"]) } : {}),
    },
    ...(options["jwks-url"]
      ? {
          externalIssuer: {
            jwksUrl: options["jwks-url"],
            issuer: options["jwks-issuer"] ?? new URL(options["jwks-url"]).origin,
          },
        }
      : {}),
    ...(role ? { backgroundLoops: role.backgroundLoops, logger: role.logger } : {}),
    ...(role?.sharedCallLog ? { sharedCallLog: role.sharedCallLog } : {}),
  });
}
