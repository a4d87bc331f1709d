/**
 * Starts the controller: data directory, keys, TLS, database and migrations, the provider
 * account, then HTTPS. `close()` stops accepting, finishes running requests and closes the
 * database (used on SIGTERM/SIGINT).
 */
import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { serve } from "@hono/node-server";
import pino, { type Logger } from "pino";
import type { TypeValidator } from "../common/type-validator.ts";
import { createControllerApp, type IdentityOptions } from "./app.ts";
import { TokenService, type ExternalIssuer } from "./auth/tokens.ts";
import { ensureProvider, type ProviderIdentity } from "./bootstrap.ts";
import { loadKeys } from "./support/data-directory.ts";
import { PropertySealer } from "./support/encryption.ts";
import { endpointClient } from "./forward/endpoint-client.ts";
import { Forwarder } from "./forward/forwarder.ts";
import { InstanceService } from "./instances/instance-service.ts";
import { TaskRunner } from "./tasks/task-runner.ts";
import { defaultDeliveryPolicy, EventDeliverer, type DeliveryPolicy } from "./events/event-deliverer.ts";
import { NotificationStore } from "./events/notification-store.ts";
import { TransactionTickets } from "./forward/transaction-tickets.ts";
import { TaskStore } from "./tasks/task-store.ts";
import { IntentStore } from "./intents/intent-store.ts";
import { IntentReconciler } from "./intents/intent-reconciler.ts";
import { ResourceClaims } from "./store/resource-claims.ts";
import { PackageCatalog, type PackageCompiler, type PackageRecord } from "./packages/catalog.ts";
import type { RegistryType } from "./registry.ts";
import { openDatabase, type Database } from "./store/open-database.ts";
import { holdPrivateUmask } from "./support/private-files.ts";
import { applyServerTimeouts, DEFAULT_SERVER_TIMEOUTS, hardenedServerOptions, type ServerTimeouts } from "./support/https-limits.ts";
import { ensureControllerTls } from "../common/certificate-authority.ts";
import { lockDataFolder } from "./support/data-folder-lock.ts";
import { ControllerStartError } from "./support/start-errors.ts";
import { redactedUrl } from "./support/redacted-url.ts";
import { ControllerMetrics } from "./observability/metrics.ts";
import { observedEndpointCall } from "./forward/observed-endpoint-call.ts";
import { migrationState } from "./store/migration-state.ts";

/** `aps-gen migrate`: applies the migrations without serving (`aps-gen/controller` exports it from here). */
export { migrateDatabase, type MigrationReport } from "./migrate.ts";

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
  readonly externalIssuer?: ExternalIssuer;
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
  /** Time-outs of the HTTPS server (defaults: https-limits.ts). */
  readonly serverTimeouts?: Partial<ServerTimeouts>;
  /** Revocation feed, failed token verification and navigation limits (defaults in their modules). */
  readonly identity?: IdentityOptions;
  /**
   * Apply pending migrations before serving (default). False for `serve --no-migrate`, where
   * migrations are a deployment step of their own (migrate.ts): the controller then refuses to
   * start while any is pending, rather than serve a schema it was not written for.
   */
  readonly migrate?: boolean;
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

export async function startController(options: ControllerOptions): Promise<RunningController> {
  const dataDir = resolve(options.dataDir);
  // Everything the controller writes from here on is private to its user (keys, database files).
  const releaseUmask = holdPrivateUmask();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const host = options.host ?? "127.0.0.1";
  const logger =
    options.logger ??
    pino({ level: process.env.LOG_LEVEL ?? "info", redact: { paths: ["req.headers[\"aps-token\"]", "headers[\"aps-token\"]", "token", "body", "secrets"], censor: "[redacted]" } });
  // The embedded database is one process's; PostgreSQL may be shared by several controllers.
  const releaseFolder = (options.database ? options.database.kind === "postgres" : options.databaseUrl) ? () => {} : lockDataFolder(dataDir);
  const keys = loadKeys(dataDir);
  const tls = await ensureControllerTls(dataDir, [...new Set([host, "localhost", "127.0.0.1"])]);
  const migrate = options.migrate !== false;
  const database =
    options.database ??
    (await openDatabase({ dataDir, ...(options.databaseUrl ? { url: options.databaseUrl } : {}), migrate, pgliteTemplate: options.pgliteTemplate }).catch((error: unknown) => {
      releaseFolder();
      releaseUmask();
      throw options.databaseUrl ? new ControllerStartError(`cannot reach the database at ${redactedUrl(options.databaseUrl)}: ${(error as Error).message}`, "database-unreachable") : error;
    }));
  // What it opened it closes; a database it was given stays its caller's.
  const closeDatabase = () => (options.database ? Promise.resolve() : database.close());
  if (!migrate && !options.database) {
    // Also the first query on PostgreSQL (nothing connected yet without the migrator): it tells an unreachable server too.
    const refusal = await migrationState(database.db).then(
      (state) => (state.pending > 0 ? new ControllerStartError(`the database ${options.databaseUrl ? `at ${redactedUrl(options.databaseUrl)}` : `in ${dataDir}`} has ${state.pending} of ${state.total} migrations not applied; run \`aps-gen migrate\` first, or start without --no-migrate`, "migrations-pending") : undefined),
      (error: unknown) => (options.databaseUrl ? new ControllerStartError(`cannot reach the database at ${redactedUrl(options.databaseUrl)}: ${(error as Error).message}`, "database-unreachable") : (error as Error)),
    );
    if (refusal) {
      await closeDatabase();
      releaseFolder();
      releaseUmask();
      throw refusal;
    }
  }
  const tokens = new TokenService(keys.token, options.externalIssuer);
  const provider = await ensureProvider(database.db, tokens, dataDir);
  const catalog = new PackageCatalog(database.db, options.types, options.validators, options.packages ?? [], options.compiler);
  await catalog.refresh();
  const sealer = new PropertySealer(keys.encryption);
  let url = "";
  const metrics = new ControllerMetrics(database.db, logger);
  const forwarder = new Forwarder(observedEndpointCall(endpointClient({ cert: tls.client.cert, key: tls.client.key, timeoutMs: options.endpointTimeoutMs ?? 30_000 }), metrics, logger), () => url);
  const tickets = new TransactionTickets(keys.token);
  // aps.x509.controller: the client certificate presented to endpoints, then the CA (platform-forms Q3).
  const controllerIdentity = `${tls.client.cert.trim()}\n${tls.ca.cert.trim()}\n`;
  const instances = new InstanceService(database.db, catalog, forwarder, tls.ca, sealer, { id: provider.accountId, path: `/${provider.accountId}/` }, tickets, controllerIdentity);
  const taskStore = new TaskStore(database.db, sealer);
  // A claim or an intent outlives the slowest forward (the endpoint time-out) and the commit
  // after it (at most the statement time-out): until then its holder may still be at work.
  const leaseMs = (options.endpointTimeoutMs ?? 30_000) + (options.commitMarginMs ?? 20_000);
  const claims = new ResourceClaims(database.db, leaseMs);
  const intents = new IntentStore(database.db, leaseMs);
  const notifications = new NotificationStore(database.db);
  const deliverer = new EventDeliverer(
    notifications,
    { registry: () => catalog.registry, targetOf: (id) => instances.targetOf(id), notify: (target, path, body) => forwarder.notify(target, path, body) },
    logger,
    { ...defaultDeliveryPolicy, ...options.eventDelivery },
  );
  const { app, runTask, stop: stopApp } = createControllerApp({
    catalog,
    ...(options.compiler ? { compiler: options.compiler } : {}),
    db: database.db,
    ...(options.openApi ? { openApi: options.openApi } : {}),
    tokens,
    sealer,
    logger,
    metrics,
    ...(options.identity ? { identity: options.identity } : {}),
    applications: { instances, forwarder, tasks: taskStore, claims, intents, provider: { id: provider.accountId, path: `/${provider.accountId}/` }, tickets, events: { store: notifications, nudge: () => deliverer.nudge() } },
  });
  const runner = new TaskRunner(taskStore, runTask, logger);
  const reconciler = new IntentReconciler({ intents, forwarder, registry: () => catalog.registry, targetOf: (id) => instances.targetOf(id) }, logger);

  const serverTimeouts = { ...DEFAULT_SERVER_TIMEOUTS, ...options.serverTimeouts };
  const server = await new Promise<Server>((ready, fail) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? 8443, hostname: host, createServer, serverOptions: { ...hardenedServerOptions(serverTimeouts), key: tls.server.key, cert: tls.server.cert, ca: tls.ca.cert, requestCert: true, rejectUnauthorized: false } }, () => ready(s as Server));
    (s as Server).once("error", fail);
  }).catch(async (error: NodeJS.ErrnoException) => {
    // Nothing serves: undo what started, so the process can end with one line.
    await stopApp();
    await closeDatabase();
    releaseFolder();
    releaseUmask();
    const where = `${host}:${options.port ?? 8443}`;
    if (error.code === "EADDRINUSE") throw new ControllerStartError(`port ${options.port ?? 8443} on ${host} is in use by another process; stop it or give another --port`, "port-in-use");
    if (error.code === "EADDRNOTAVAIL" || error.code === "EACCES") throw new ControllerStartError(`cannot listen on ${where}: ${error.code === "EACCES" ? "permission denied (ports below 1024 need privileges)" : "no such address on this machine"}`, "address-unavailable");
    throw error;
  });
  const stopStallChecks = applyServerTimeouts(server, serverTimeouts);
  const port = (server.address() as AddressInfo).port;
  url = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
  logger.info({ url, database: database.kind }, "controller listening");
  runner.start();
  reconciler.start();
  deliverer.start();
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    caCertPath: tls.caCertPath,
    caCert: tls.ca.cert,
    provider,
    database: database.kind,
    routes: app.routes.filter((r) => r.method !== "ALL").map(({ method, path }) => ({ method, path })),
    metrics,
    request: async (input, init) => app.request(input, init),
    close: () =>
      (closing ??= (async () => {
        await Promise.all([runner.stop(), deliverer.stop(), reconciler.stop(), stopApp()]);
        await new Promise<void>((done) => {
          server.close(() => done());
          server.closeIdleConnections();
        });
        stopStallChecks();
        await closeDatabase();
        releaseFolder();
        releaseUmask();
      })()),
  };
}
