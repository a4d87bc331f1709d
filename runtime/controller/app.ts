/**
 * The controller as a Hono app: authenticate -> route -> roles and access ->
 * validation -> store -> shape the response. Built from a type registry and its validators.
 */
import { Hono } from "hono";
import type { Logger } from "pino";
import {
  AccountRevocationFeed,
  DEFAULT_REVOCATION_FEED,
  type RevocationFeedOptions,
} from "./auth/account-revocations.ts";
import { CallerResolver } from "./auth/caller.ts";
import { ApplicationCallers } from "./auth/application-caller.ts";
import { OAuthNonces } from "./auth/oauth-nonces.ts";
import { OAuthVerifier } from "./auth/oauth-verifier.ts";
import {
  DEFAULT_FAILED_VERIFICATION_LIMIT,
  FailedVerificationLimiter,
  type FailedVerificationLimit,
} from "./auth/failed-verification-limiter.ts";
import { callerMiddleware } from "./auth/caller-middleware.ts";
import type { TokenService } from "./auth/tokens.ts";
import type { ControllerEnv } from "./context.ts";
import type { PropertySealer } from "./support/encryption.ts";
import { ControllerError } from "./support/errors.ts";
import type { Forwarder } from "./forward/forwarder.ts";
import type { InstanceLifecycle } from "./instances/instance-lifecycle.ts";
import type { InstanceLookup } from "./instances/instance-lookup.ts";
import { ApplicationService } from "./application-service.ts";
import { applicationRoutes } from "./routes/application.ts";
import { customerRoutes } from "./routes/customers.ts";
import { staticOperationRoutes } from "./routes/static-operations.ts";
import { instanceRoutes } from "./routes/instances.ts";
import { applicationInstanceRoutes } from "./routes/applications.ts";
import { platformServiceRoutes } from "./routes/platform-services.ts";
import { platformNotificationRoutes } from "./routes/platform-notifications.ts";
import { NotificationManagerLocator } from "./platform/notification-manager.ts";
import { NotificationLog } from "./platform/notification-log.ts";
import { versionProbeRoutes } from "./routes/version-probe.ts";
import { taskRoutes } from "./routes/tasks.ts";
import { eventOutboxRoutes } from "./routes/event-outbox.ts";
import { subscriptionRoutes } from "./routes/subscriptions.ts";
import type { NotificationStore } from "./events/notification-store.ts";
import { everySubscription, SubscriptionService } from "./events/subscription-service.ts";
import type { TransactionStore } from "./forward/transaction-store.ts";
import type { TaskStore } from "./tasks/task-store.ts";
import type { IntentStore } from "./intents/intent-store.ts";
import type { ResourceClaims } from "./store/resource-claims.ts";
import { sendJson } from "./support/http-json.ts";
import { stringifyJson } from "../common/json-text.ts";
import type { PackageCatalog, PackageCompiler } from "./packages/catalog.ts";
import { RelationService } from "./relations/relation-service.ts";
import { ResourceService } from "./resources/resource-service.ts";
import { ReadViews } from "./resources/read-views.ts";
import type { ResourceContext } from "./resources/resource-context.ts";
import { ResourceAccess } from "./access/resource-access.ts";
import { CustomOperations } from "./operations/custom-operations.ts";
import { Suspension } from "./suspension/suspension.ts";
import { attemptTask, type TaskAttemptResult } from "./tasks/task-attempt.ts";
import type { TaskRow } from "./tasks/task-store.ts";
import { resourceRoutes } from "./routes/resources.ts";
import { packageRoutes } from "./routes/packages.ts";
import { typeRoutes } from "./routes/types.ts";
import { DEFAULT_NAVIGATION_LIMITS, navigationRoutes, uiRuntimeRoutes, type NavigationLimits } from "./routes/ui.ts";
import type { Db } from "./store/open-database.ts";
import type { PropertyIndexer } from "./store/property-indexes.ts";
import type { ReplicaReads } from "./store/replica-reads.ts";
import { ResourceStore } from "./store/resource-store.ts";
import { ResourceRows } from "./store/resource-rows.ts";
import { replyHeaders } from "./support/reply-headers.ts";
import { controllerPath } from "./support/request-path.ts";
import { ControllerMetrics } from "./observability/metrics.ts";
import { requestLog } from "./observability/request-log.ts";
import { requestMetrics } from "./observability/request-metrics.ts";
import { operationsRoutes } from "./routes/operations.ts";
import { errorReply } from "./routes/error-reply.ts";
import { consoleRoutes } from "./routes/console.ts";
import { consoleCallRoutes } from "./routes/console-calls.ts";
import type { EndpointCallLog } from "./observability/endpoint-call-log.ts";

/** What the controller app is made of. */
export interface ControllerParts {
  readonly catalog: PackageCatalog;
  /** Checks and compiles imported packages (the generator's); without it, imports answer 405. */
  readonly compiler?: PackageCompiler;
  readonly db: Db;
  readonly tokens: TokenService;
  readonly sealer: PropertySealer;
  readonly logger: Logger;
  /** Its Prometheus registry (observability/metrics.ts); one of its own when absent. */
  readonly metrics?: ControllerMetrics;
  /** Where the reads of `/aps/2/resources` go when there are streaming replicas (store/replica-reads.ts); without it, to `db`. */
  readonly reads?: ReplicaReads;
  /** Makes the indexes lists ask for (store/property-indexes.ts); without it, lists go without them. */
  readonly propertyIndexes?: PropertyIndexer;
  /** The OpenAPI document of the controller for its types, served at /aps/2/openapi.json. */
  readonly openApi?: Record<string, unknown>;
  /** Limits of identity: revocation feed, failed token verifications, navigation trees. */
  readonly identity?: IdentityOptions;
  /** The console at /console/ (routes/console.ts), served from `folder` (undefined: not built); absent: no console. */
  readonly console?: { readonly folder: string | undefined };
  /** Application instances and forwarding; without them, application types answer 502. */
  readonly applications?: {
    /** Installing, listing and removing instances (`/aps/2/instances`, `/aps/2/applications`). */
    readonly instances: InstanceLifecycle;
    /** Which instance serves a type, and which one a caller's credentials name. */
    readonly instanceLookup: InstanceLookup;
    readonly forwarder: Forwarder;
    readonly tasks: TaskStore;
    readonly provider: { id: string; path: string };
    /** What the transaction ids of provisionings and installs stand for (forward/transaction-store.ts). */
    readonly transactions: TransactionStore;
    /** Configures of a resource one at a time (store/resource-claims.ts). */
    readonly claims: ResourceClaims;
    /** Provisionings sent and not yet stored (intents/intent-store.ts). */
    readonly intents: IntentStore;
    /** The event outbox, and how to tell the deliverer there is something new. */
    readonly events: { readonly store: NotificationStore; nudge(): void };
    /** The calls made to endpoints, for the console's live log (absent with the console off). */
    readonly calls?: EndpointCallLog;
  };
}

/** Limits of identity and of what callers may store, each defaulting to what its module says. */
export interface IdentityOptions {
  /** How often the account revocation feed is read, and how long it is kept (auth/account-revocations.ts). */
  readonly revocations?: Partial<RevocationFeedOptions>;
  /** Failed token verifications per source address (auth/failed-verification-limiter.ts). */
  readonly failedTokens?: Partial<FailedVerificationLimit>;
  /** Size of navigation trees (routes/ui.ts). */
  readonly navigation?: Partial<NavigationLimits>;
}

/** The app, and what the task runner runs. */
export interface ControllerApp {
  readonly app: Hono<ControllerEnv>;
  /** One attempt of an asynchronous task (tasks/task-attempt.ts). */
  runTask(task: TaskRow): Promise<TaskAttemptResult>;
  readonly metrics: ControllerMetrics;
  /** Stops following the account revocation feed; call before closing the database. */
  stop(): Promise<void>;
}

/** Creates the controller's HTTP app. */
export function createControllerApp(parts: ControllerParts): ControllerApp {
  const store = new ResourceStore(parts.db);
  const identity = parts.identity ?? {};
  const { callers, revocations } = tokenCallers(parts, store, identity);
  const applications = parts.applications;
  const context = resourceContext(parts, store);
  const resources = new ResourceService(context);
  const operations = new CustomOperations(context);
  const suspension = new Suspension(context);
  // Routes `/x/` as `/x` (the APS pages and dojo stores write `/aps/2/resources/`,
  // docs/aps/rest-api.md, "Collections") and `//aps/...` as `/aps/...` (apsconnect-cli, §1.1):
  // request-path.ts.
  const app = new Hono<ControllerEnv>({ getPath: controllerPath });

  const metrics = parts.metrics ?? new ControllerMetrics(parts.db, parts.logger);
  routeOpenEndpoints(app, parts, metrics);
  // Certificate callers, before the token check that every other /aps/2 call passes.
  const applicationCallers = applications
    ? routeApplicationCredentials(app, parts, applications, context, callers)
    : undefined;
  // Every other /aps/2 call: an application instance by its credentials, else a token (auth/application-caller.ts).
  app.use("/aps/2/*", callerMiddleware(callers, applicationCallers));
  // The platform's notification manager, which the controller serves itself (routes/platform-notifications.ts).
  const notificationManager = new NotificationManagerLocator(parts.db);
  app.route(
    "/aps/2/resources",
    platformNotificationRoutes({ manager: notificationManager, log: new NotificationLog(parts.db), store }),
  );
  const relations = new RelationService(context, resources);
  const reads = new ReadViews(context, { db: parts.db, view: { resources, relations } }, parts.reads);
  app.route("/aps/2/resources", resourceRoutes({ resources, relations, reads, operations, suspension }));
  app.route("/aps/2/types", typeRoutes(parts.catalog));
  app.route("/aps/2/packages", packageRoutes(parts.catalog, parts.db, parts.compiler, parts.logger));
  app.route("/aps/2/navigation", navigationRoutes(parts.db, { ...DEFAULT_NAVIGATION_LIMITS, ...identity.navigation }));
  app.route("/aps/2/customers", customerRoutes(suspension));
  app.route("/aps/2/static", staticOperationRoutes(operations));
  app.route("/aps/2/services", platformServiceRoutes(notificationManager));
  if (applications) {
    app.route("/aps/2/instances", instanceRoutes(applications.instances));
    app.route("/aps/2/applications", applicationInstanceRoutes(applications.instances, parts.catalog));
    app.route("/aps/2/tasks", taskRoutes(applications.tasks));
    app.route(
      "/aps/2/events",
      eventOutboxRoutes(applications.events.store, applications.events.nudge, (limit) =>
        everySubscription(parts.db, limit),
      ),
    );
    if (applications.calls) app.route("/aps/2/console", consoleCallRoutes(applications.calls));
  }
  app.all("/aps/2/resources/*", (c) => {
    throw new ControllerError(
      405,
      `${c.req.method} is not an operation of /aps/2/resources; use GET, POST, PUT or DELETE.`,
    );
  });

  app.notFound((c) =>
    sendJson(c, new ControllerError(404, `Nothing is served at ${new URL(c.req.url).pathname}.`).toBody(), 404),
  );
  app.onError(errorReply(parts.logger));
  return { app, runTask: (task) => attemptTask(context, task), metrics, stop: () => revocations.stop() };
}

/**
 * Token callers, and the account revocation feed that tells them which accounts are gone: until
 * the feed knows where it stands, no verified token is cached.
 */
function tokenCallers(
  parts: ControllerParts,
  store: ResourceStore,
  identity: IdentityOptions,
): { callers: CallerResolver; revocations: AccountRevocationFeed } {
  let revocations: AccountRevocationFeed | undefined;
  const callers = new CallerResolver(
    parts.tokens,
    store,
    new FailedVerificationLimiter({ ...DEFAULT_FAILED_VERIFICATION_LIMIT, ...identity.failedTokens }),
    () => revocations?.ready === true,
  );
  revocations = new AccountRevocationFeed(
    parts.db,
    callers,
    { ...DEFAULT_REVOCATION_FEED, ...identity.revocations },
    parts.logger,
  );
  revocations.start();
  return { callers, revocations };
}

/** What every request passes (reply headers, its log line, its metrics), and what needs no credentials. */
function routeOpenEndpoints(app: Hono<ControllerEnv>, parts: ControllerParts, metrics: ControllerMetrics): void {
  app.use("*", replyHeaders());
  app.use("*", requestLog(parts.logger));
  app.use("*", requestMetrics(metrics));
  // /healthz, /readyz, /metrics: no credentials (routes/operations.ts says why).
  const reads = parts.reads;
  app.route("/", operationsRoutes(parts.db, metrics, parts.logger, reads && (() => reads.statuses())));
  app.route("/aps/2/ui/runtime", uiRuntimeRoutes());
  app.route("/aps", versionProbeRoutes());
  // The console's files: no credentials, the app signs in itself (routes/console.ts).
  if (parts.console) app.route("/", consoleRoutes(parts.console.folder));
  if (parts.openApi) {
    // Serialised once; the document describes the API, not data, so it needs no token.
    const text = stringifyJson(parts.openApi);
    app.get("/aps/2/openapi.json", (c) => c.body(text, 200, { "content-type": "application/json; charset=utf-8" }));
  }
}

/**
 * The routes only application instances call (`/aps/2/application`, their subscriptions), each
 * checking the instance's certificate or OAuth signature itself; returns how every other route
 * recognises an instance by the same credentials.
 */
function routeApplicationCredentials(
  app: Hono<ControllerEnv>,
  parts: ControllerParts,
  applications: NonNullable<ControllerParts["applications"]>,
  context: ResourceContext,
  callers: CallerResolver,
): ApplicationCallers {
  const { store, rows, access } = context;
  // The second way an instance is known: its OAuth 1.0a signature (auth/oauth-verifier.ts).
  const oauth = new OAuthVerifier(applications.instanceLookup, new OAuthNonces(parts.db));
  const service = new ApplicationService(parts.catalog, store, rows, applications.provider);
  app.route(
    "/aps/2/application",
    applicationRoutes(service, applications.instanceLookup, (c) => oauth.verify(c)) as unknown as Hono<ControllerEnv>,
  );
  const subscriptions = new SubscriptionService(
    () => parts.catalog.registry,
    () => parts.catalog.refresh(),
    parts.db,
    store,
  );
  app.route(
    "/aps/2/resources",
    subscriptionRoutes(subscriptions, {
      registry: () => parts.catalog.registry,
      store,
      access,
      callers,
      instances: applications.instanceLookup,
      transactions: applications.transactions,
      oauth: (c) => oauth.verify(c),
    }) as unknown as Hono<ControllerEnv>,
  );
  return new ApplicationCallers(applications.instanceLookup, store, applications.transactions, [
    (c) => oauth.verify(c),
  ]);
}

/** What every resource feature shares (resources/resource-context.ts); each feature is a module of its own. */
function resourceContext(parts: ControllerParts, store: ResourceStore): ResourceContext {
  const applications = parts.applications;
  return {
    catalog: parts.catalog,
    store,
    rows: new ResourceRows(parts.sealer),
    access: new ResourceAccess(parts.catalog, store),
    ...(parts.propertyIndexes ? { indexes: parts.propertyIndexes } : {}),
    ...(applications
      ? {
          applications: {
            targetFor: (type) => applications.instanceLookup.targetFor(type),
            targetOf: (id) => applications.instanceLookup.targetOf(id),
            forwarder: applications.forwarder,
            tasks: applications.tasks,
            transactions: applications.transactions,
            claims: applications.claims,
            intents: applications.intents,
            provider: applications.provider,
          },
        }
      : {}),
  };
}
