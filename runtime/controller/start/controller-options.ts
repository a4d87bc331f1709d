/**
 * What {@link startController} (serve.ts) takes and what it gives back. They live here, not in
 * serve.ts, so that the steps of a start (this folder) can read the options without importing
 * the module that runs them; serve.ts exports both as `aps-gen/controller`.
 */
import type { Logger } from "pino";
import type { TypeValidator } from "../../common/type-validator.ts";
import type { IdentityOptions } from "../app.ts";
import type { ExternalIssuer } from "../auth/tokens.ts";
import type { ProviderIdentity } from "../bootstrap.ts";
import type { DeploymentKey } from "../deployment/deployment-key.ts";
import type { DeliveryPolicy } from "../events/event-deliverer.ts";
import type { SharedEndpointCallLog } from "../observability/endpoint-call-log.ts";
import type { ControllerMetrics } from "../observability/metrics.ts";
import type { PackageCompiler, PackageRecord } from "../packages/catalog.ts";
import type { RegistryType } from "../registry.ts";
import type { Database } from "../store/open-database.ts";
import type { ServerTimeouts } from "../support/https-limits.ts";

/** Options of {@link startController}. */
export interface ControllerOptions {
  /** Types it starts with (the compiled registry) and their validators. */
  readonly types: readonly RegistryType[];
  readonly validators: ReadonlyMap<string, TypeValidator>;
  /** Packages it starts with, for /aps/2/packages. */
  readonly packages?: readonly PackageRecord[];
  /** Compiles packages imported while running; without it, imports are refused. */
  readonly compiler?: PackageCompiler;
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly dataDir: string;
  /** PostgreSQL URL; PGlite in the data directory when absent. */
  readonly databaseUrl?: string;
  /**
   * PostgreSQL streaming replicas of `databaseUrl` (`serve --read-database-url`, repeatable): GETs
   * of resources, their links and lists read from one that has replayed every write acknowledged
   * before the read, else from the primary (store/replica-reads.ts). PostgreSQL only.
   */
  readonly readDatabaseUrls?: readonly string[];
  /** Skip a replica more than this far behind the primary (`serve --read-max-lag`; default 1 s). */
  readonly readMaxLagMs?: number;
  /**
   * Tests only: false reads from any usable replica without waiting for it to replay the caller's
   * writes, to show what the fence prevents. Unset, as `aps-gen serve` leaves it.
   */
  readonly readFence?: boolean;
  readonly externalIssuer?: ExternalIssuer;
  /**
   * The deployment key (`serve --deployment-key-file`, `APS_DEPLOYMENT_KEY`): the keys and the CA
   * come from the database, sealed under it, instead of the data folder, so that every controller
   * on one PostgreSQL uses the same ones (deployment/shared-keys.ts). PostgreSQL only.
   */
  readonly deploymentKey?: DeploymentKey;
  readonly logger?: Logger;
  /** How long to wait for an application endpoint (default 30 s). */
  readonly endpointTimeoutMs?: number;
  /**
   * Room for the commit after an application answers (default 20 s, above the statement
   * time-out): a resource claim or a provisioning intent is leased for the endpoint time-out
   * plus this, so a process that died leaves them to others, or to the reconciler, after both.
   */
  readonly commitMarginMs?: number;
  /** The OpenAPI document to serve at /aps/2/openapi.json (the generator builds it). */
  readonly openApi?: Record<string, unknown>;
  /** Retries of event delivery (defaults: events/event-deliverer.ts). */
  readonly eventDelivery?: Partial<DeliveryPolicy>;
  /** Time-outs and transfer limits of the HTTPS server: phases, body rate, reply stall, lingering close (defaults: https-limits.ts). */
  readonly serverTimeouts?: Partial<ServerTimeouts>;
  /** Revocation feed, failed token verification and navigation limits (defaults in their modules). */
  readonly identity?: IdentityOptions;
  /**
   * The console at /console/ (docs/console.md): on by default, from the built files the package
   * carries (routes/console.ts `defaultConsoleFolder`); false turns it off (`serve --no-console`),
   * and `{ folder }` serves another build of it (tests).
   */
  readonly console?: boolean | { readonly folder: string };
  /**
   * Apply pending migrations before serving (default). False for `serve --no-migrate`, where
   * migrations are a deployment step of their own (migrate.ts): the controller then refuses to
   * start while any is pending, rather than serve a schema it was not written for.
   */
  readonly migrate?: boolean;
  /**
   * Run the polling loops: asynchronous tasks, provisioning intents, event delivery and the
   * pruning of expired transactions (default). False in the workers of `serve --workers N` but
   * one (cli/serve/workers/): the loops claim their rows with `FOR UPDATE SKIP LOCKED`, so every
   * process could run them, but N processes polling the same idle queues several times a second
   * only multiply the queries. The property indexer runs either way: lists ask it in memory.
   */
  readonly backgroundLoops?: boolean;
  /**
   * The console's live log of calls to applications merged over several processes (the workers
   * of `serve --workers N`, cli/serve/workers/worker-call-log.ts). Unset, the process keeps its
   * own (observability/endpoint-call-log.ts).
   */
  readonly sharedCallLog?: SharedEndpointCallLog;
  /**
   * Tests only: a new embedded database starts as a copy of this migrated, empty `pgdata` folder
   * instead of running initdb (see store/open-database.ts). Unset, as `aps-gen serve` leaves it.
   */
  readonly pgliteTemplate?: string;
  /**
   * Tests only: an open, migrated database to run on instead of opening one (`databaseUrl`,
   * `migrate` and `pgliteTemplate` are then not used). The caller keeps it: `close()` leaves it
   * open, so a test can look at rows while the controller runs and restart it on the same data.
   */
  readonly database?: Database;
}

/** A running controller. */
export interface RunningController {
  readonly url: string;
  readonly port: number;
  readonly caCertPath: string;
  readonly caCert: string;
  readonly provider: ProviderIdentity;
  readonly database: "pglite" | "postgres";
  /** The method and path of every route it answers (Hono patterns: `:name`, `*`), middleware left out. */
  readonly routes: readonly { readonly method: string; readonly path: string }[];
  /** Its Prometheus registry, as /metrics serves it. */
  readonly metrics: ControllerMetrics;
  /**
   * Answers one request in process, without a socket or TLS (Hono's `app.request`): what the
   * server would answer, except what depends on the connection itself (client certificate,
   * source address). For tests of its behaviour.
   */
  request(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}
