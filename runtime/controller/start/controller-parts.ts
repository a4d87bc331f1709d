/**
 * The controller's services and its app, built on an open database: the provider account, the
 * package catalog (the registry it starts with and what was imported since), forwarding to
 * application instances, and the background loops that wait for the controller to listen.
 */
import type { Logger } from "pino";
import { createControllerApp, type ControllerApp, type ControllerParts } from "../app.ts";
import { TokenService } from "../auth/tokens.ts";
import { ensureProvider, type ProviderIdentity } from "../bootstrap.ts";
import { defaultDeliveryPolicy, EventDeliverer } from "../events/event-deliverer.ts";
import { NotificationStore } from "../events/notification-store.ts";
import { endpointClient } from "../forward/endpoint-client.ts";
import { Forwarder } from "../forward/forwarder.ts";
import { observedEndpointCall } from "../forward/observed-endpoint-call.ts";
import { DEFAULT_TRANSACTION_VALID_MS, TransactionStore } from "../forward/transaction-store.ts";
import { InstanceLifecycle } from "../instances/instance-lifecycle.ts";
import { InstanceLookup } from "../instances/instance-lookup.ts";
import { IntentReconciler } from "../intents/intent-reconciler.ts";
import { IntentStore } from "../intents/intent-store.ts";
import { DatabaseOutageLog } from "../observability/database-outage-log.ts";
import { ControllerMetrics } from "../observability/metrics.ts";
import { PackageCatalog } from "../packages/catalog.ts";
import { ensureNotificationManager } from "../platform/notification-manager.ts";
import type { Db } from "../store/open-database.ts";
import { PropertyIndexer } from "../store/property-indexes.ts";
import { BackgroundLoop } from "../support/background-loop.ts";
import { ResourceClaims } from "../store/resource-claims.ts";
import type { ControllerKeys } from "../support/data-directory.ts";
import { PropertySealer } from "../support/encryption.ts";
import { TaskRunner } from "../tasks/task-runner.ts";
import { TaskStore } from "../tasks/task-store.ts";
import type { ControllerTls } from "../../common/certificate-authority.ts";
import type { ControllerOptions } from "./controller-options.ts";
import type { HeldResources } from "./held-resources.ts";
import { openReadReplicas } from "./read-replicas.ts";
import { defaultConsoleFolder } from "../routes/console.ts";
import { ENDPOINT_CALL_LOG_SIZE, EndpointCallLog } from "../observability/endpoint-call-log.ts";

/** How often each process deletes expired transactions (forward/transaction-store.ts). */
const PRUNE_TRANSACTIONS_EVERY_MS = 60_000;

/** What the controller is made of before it listens. */
export interface AssembledController {
  readonly app: ControllerApp["app"];
  readonly provider: ProviderIdentity;
  readonly metrics: ControllerMetrics;
  /** Asynchronous tasks, provisioning intents, event delivery and expired transactions (unless `backgroundLoops` is false), property indexes: started once it listens. */
  readonly loops: { start(): void; stop(): Promise<void> };
  /** Stops the app's own work (the revocation feed); before the database closes. */
  stopApp(): Promise<void>;
}

/** What the parts are built from: the options, and what the earlier steps of the start made. */
interface ControllerFoundation {
  readonly options: ControllerOptions;
  readonly dataDir: string;
  readonly logger: Logger;
  readonly keys: ControllerKeys;
  readonly tls: ControllerTls;
  readonly db: Db;
  /** The controller's own URL, known once it listens (events and links sent to endpoints name it). */
  readonly url: () => string;
  /** What the start holds, given back when the controller closes (the read replicas' pools join it). */
  readonly held: HeldResources;
}

export async function assembleController(foundation: ControllerFoundation): Promise<AssembledController> {
  const { options, db, logger, keys } = foundation;
  const tokens = new TokenService(keys.token, options.externalIssuer);
  const provider = await ensureProvider(db, tokens, foundation.dataDir);
  const catalog = new PackageCatalog(db, options.types, options.validators, options.packages ?? [], options.compiler);
  await catalog.refresh();
  // The platform services that are resources (the notification manager), once the types are known.
  await ensureNotificationManager(db, catalog.registry, provider.accountId);
  const sealer = new PropertySealer(keys.encryption);
  const metrics = new ControllerMetrics(db, logger);
  const reads = openReadReplicas(options, db, metrics, logger, foundation.held);
  const { applications, deliverer } = applicationParts(foundation, {
    catalog,
    sealer,
    metrics,
    provider: { id: provider.accountId, path: `/${provider.accountId}/` },
  });
  // Indexes of the properties lists filter on, made in the background when a list first asks (store/property-indexes.ts).
  const indexing: BackgroundLoop = new BackgroundLoop(
    () => indexer.pass(),
    60_000,
    (error) => logger.warn({ err: error }, "the property indexes for lists were not looked at"),
    new DatabaseOutageLog(logger, "property indexes"),
  );
  const indexer = new PropertyIndexer(
    db,
    options.database?.kind ?? (options.databaseUrl ? "postgres" : "pglite"),
    logger,
    () => indexing.nudge(),
  );
  const { app, runTask, stop } = createControllerApp({
    propertyIndexes: indexer,
    catalog,
    ...(options.compiler ? { compiler: options.compiler } : {}),
    db,
    ...(reads ? { reads } : {}),
    ...(options.openApi ? { openApi: options.openApi } : {}),
    tokens,
    sealer,
    logger,
    metrics,
    ...(options.identity ? { identity: options.identity } : {}),
    ...(options.console === false
      ? {}
      : { console: { folder: typeof options.console === "object" ? options.console.folder : defaultConsoleFolder() } }),
    applications,
  });
  const runner = new TaskRunner(applications.tasks, runTask, logger);
  // Expired transactions read as unknown already; deleting them keeps the table to those in flight.
  const pruner = new BackgroundLoop(
    async () => {
      await applications.transactions.prune();
      return false;
    },
    PRUNE_TRANSACTIONS_EVERY_MS,
    (error) =>
      logger.error(
        { err: { name: (error as Error).name, message: (error as Error).message } },
        "deleting expired transactions failed",
      ),
    new DatabaseOutageLog(logger, "expired transactions"),
  );
  const reconciler = new IntentReconciler(
    {
      intents: applications.intents,
      forwarder: applications.forwarder,
      registry: () => catalog.registry,
      targetOf: (id) => applications.instanceLookup.targetOf(id),
    },
    logger,
  );
  const loops = {
    start: () => {
      if (options.backgroundLoops !== false) {
        runner.start();
        reconciler.start();
        deliverer.start();
        pruner.start();
      }
      indexing.start();
    },
    stop: async () => {
      await Promise.all([runner.stop(), deliverer.stop(), reconciler.stop(), pruner.stop(), indexing.stop()]);
    },
  };
  return { app, provider, metrics, loops, stopApp: stop };
}

type Applications = NonNullable<ControllerParts["applications"]>;

/** Application instances and what serves them: forwarding, transactions, tasks, claims and intents, the event outbox and its deliverer. */
function applicationParts(
  { options, db, logger, tls, url }: ControllerFoundation,
  shared: {
    catalog: PackageCatalog;
    sealer: PropertySealer;
    metrics: ControllerMetrics;
    provider: Applications["provider"];
  },
): { applications: Applications; deliverer: EventDeliverer } {
  const { catalog, sealer, provider } = shared;
  const endpointTimeoutMs = options.endpointTimeoutMs ?? 30_000;
  // The console's live log of these calls, kept only while there is a console to show it.
  const calls =
    options.console === false
      ? undefined
      : new EndpointCallLog(() => catalog.registry, ENDPOINT_CALL_LOG_SIZE, options.sharedCallLog);
  const forwarder = new Forwarder(
    observedEndpointCall(
      endpointClient({ cert: tls.client.cert, key: tls.client.key, timeoutMs: endpointTimeoutMs }),
      shared.metrics,
      logger,
      calls,
    ),
    url,
  );
  // A claim or an intent outlives the slowest forward (the endpoint time-out) and the commit
  // after it (at most the statement time-out): until then its holder may still be at work.
  const leaseMs = endpointTimeoutMs + (options.commitMarginMs ?? 20_000);
  // A transaction id is honoured at least as long as the call made with it may last.
  const transactions = new TransactionStore(db, Math.max(DEFAULT_TRANSACTION_VALID_MS, leaseMs));
  // aps.x509.controller: the client certificate presented to endpoints, then the CA (platform-forms Q3).
  const controllerIdentity = `${tls.client.cert.trim()}\n${tls.ca.cert.trim()}\n`;
  const instanceLookup = new InstanceLookup(db, catalog, sealer, transactions);
  const instances = new InstanceLifecycle(
    db,
    catalog,
    instanceLookup,
    forwarder,
    tls.ca,
    sealer,
    provider,
    transactions,
    controllerIdentity,
  );
  const notifications = new NotificationStore(db);
  const deliverer = new EventDeliverer(
    notifications,
    {
      registry: () => catalog.registry,
      targetOf: (id) => instanceLookup.targetOf(id),
      notify: (target, path, body) => forwarder.notify(target, path, body),
    },
    logger,
    { ...defaultDeliveryPolicy, ...options.eventDelivery },
  );
  const applications: Applications = {
    instances,
    instanceLookup,
    forwarder,
    tasks: new TaskStore(db, sealer),
    claims: new ResourceClaims(db, leaseMs),
    intents: new IntentStore(db, leaseMs, transactions.validMs),
    provider,
    transactions,
    events: { store: notifications, nudge: () => deliverer.nudge() },
    ...(calls ? { calls } : {}),
  };
  return { applications, deliverer };
}
