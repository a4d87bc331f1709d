/**
 * The controller as a Hono app (DESIGN 3): authenticate -> route -> roles and access ->
 * validation -> store -> shape the response. Built from a type registry and its validators.
 */
import { Hono } from "hono";
import type { Logger } from "pino";
import { AccountRevocationFeed, DEFAULT_REVOCATION_FEED, type RevocationFeedOptions } from "./auth/account-revocations.ts";
import { CallerResolver } from "./auth/caller.ts";
import { ApplicationCallers } from "./auth/application-caller.ts";
import { OAuthNonces } from "./auth/oauth-nonces.ts";
import { OAuthVerifier } from "./auth/oauth-verifier.ts";
import { DEFAULT_FAILED_VERIFICATION_LIMIT, FailedVerificationLimiter, type FailedVerificationLimit } from "./auth/failed-verification-limiter.ts";
import { requestSource } from "./auth/request-source.ts";
import type { TokenService } from "./auth/tokens.ts";
import type { ControllerEnv } from "./context.ts";
import type { PropertySealer } from "./support/encryption.ts";
import { ControllerError } from "./support/errors.ts";
import { ApplicationReplyError, type Forwarder } from "./forward/forwarder.ts";
import type { InstanceService } from "./instances/instance-service.ts";
import { ApplicationService } from "./application-service.ts";
import { applicationRoutes } from "./routes/application.ts";
import { customerRoutes } from "./routes/customers.ts";
import { staticOperationRoutes } from "./routes/static-operations.ts";
import { instanceRoutes } from "./routes/instances.ts";
import { applicationInstanceRoutes } from "./routes/applications.ts";
import { platformServiceRoutes } from "./routes/platform-services.ts";
import { versionProbeRoutes } from "./routes/version-probe.ts";
import { taskRoutes } from "./routes/tasks.ts";
import { eventOutboxRoutes } from "./routes/event-outbox.ts";
import { subscriptionRoutes } from "./routes/subscriptions.ts";
import type { NotificationStore } from "./events/notification-store.ts";
import { SubscriptionService } from "./events/subscription-service.ts";
import type { TransactionTickets } from "./forward/transaction-tickets.ts";
import type { TaskStore } from "./tasks/task-store.ts";
import type { IntentStore } from "./intents/intent-store.ts";
import type { ResourceClaims } from "./store/resource-claims.ts";
import { sendJson } from "./support/http-json.ts";
import { stringifyJson } from "../common/json-text.ts";
import type { PackageCatalog, PackageCompiler } from "./packages/catalog.ts";
import { RelationService } from "./relations/relation-service.ts";
import { ResourceService } from "./resources/resource-service.ts";
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
import { ResourceStore } from "./store/resource-store.ts";
import { ResourceRows } from "./store/resource-rows.ts";
import { isStatementTimeout } from "./store/statement-timeout.ts";
import { isOwnerAccountGone } from "./store/owner-account-error.ts";
import { loggableError } from "./support/loggable-error.ts";
import { replyHeaders } from "./support/reply-headers.ts";
import { controllerPath } from "./support/request-path.ts";
import { ControllerMetrics } from "./observability/metrics.ts";
import { requestLog } from "./observability/request-log.ts";
import { requestMetrics } from "./observability/request-metrics.ts";
import { operationsRoutes } from "./routes/operations.ts";

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
  /** The OpenAPI document of the controller for its types, served at /aps/2/openapi.json. */
  readonly openApi?: Record<string, unknown>;
  /** Limits of identity: revocation feed, failed token verifications, navigation trees. */
  readonly identity?: IdentityOptions;
  /** Application instances and forwarding; without them, application types answer 502. */
  readonly applications?: {
    readonly instances: InstanceService;
    readonly forwarder: Forwarder;
    readonly tasks: TaskStore;
    readonly provider: { id: string; path: string };
    readonly tickets: TransactionTickets;
    /** Configures of a resource one at a time (store/resource-claims.ts). */
    readonly claims: ResourceClaims;
    /** Provisionings sent and not yet stored (intents/intent-store.ts). */
    readonly intents: IntentStore;
    /** The event outbox, and how to tell the deliverer there is something new. */
    readonly events: { readonly store: NotificationStore; nudge(): void };
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
  let revocations: AccountRevocationFeed | undefined = undefined;
  const callers = new CallerResolver(parts.tokens, store, new FailedVerificationLimiter({ ...DEFAULT_FAILED_VERIFICATION_LIMIT, ...identity.failedTokens }), () => revocations?.ready === true);
  revocations = new AccountRevocationFeed(parts.db, callers, { ...DEFAULT_REVOCATION_FEED, ...identity.revocations }, parts.logger);
  revocations.start();
  const applications = parts.applications;
  const context = resourceContext(parts, store);
  const { rows, access } = context;
  const resources = new ResourceService(context);
  const operations = new CustomOperations(context);
  const suspension = new Suspension(context);
  // Routes `/x/` as `/x` (SPEC 4.2 and dojo stores write `/aps/2/resources/`, docs/platform-forms.md §1.7)
  // and `//aps/...` as `/aps/...` (apsconnect-cli, §1.1): request-path.ts.
  const app = new Hono<ControllerEnv>({ getPath: controllerPath });

  const metrics = parts.metrics ?? new ControllerMetrics(parts.db, parts.logger);
  app.use("*", replyHeaders());
  app.use("*", requestLog(parts.logger));
  app.use("*", requestMetrics(metrics));
  // /healthz, /readyz, /metrics: no credentials (routes/operations.ts says why).
  app.route("/", operationsRoutes(parts.db, metrics, parts.logger));
  app.route("/aps/2/ui/runtime", uiRuntimeRoutes());
  app.route("/aps", versionProbeRoutes());
  if (parts.openApi) {
    // Serialised once; the document describes the API, not data, so it needs no token.
    const text = stringifyJson(parts.openApi);
    app.get("/aps/2/openapi.json", (c) => c.body(text, 200, { "content-type": "application/json; charset=utf-8" }));
  }
  // The second way an instance is known: its OAuth 1.0a signature (auth/oauth-verifier.ts).
  const oauth = applications ? new OAuthVerifier(applications.instances, new OAuthNonces(parts.db)) : undefined;
  // Certificate callers, before the token check that every other /aps/2 call passes.
  if (applications) {
    const service = new ApplicationService(parts.catalog, store, rows, applications.provider);
    app.route("/aps/2/application", applicationRoutes(service, applications.instances, (c) => oauth!.verify(c)) as unknown as Hono<ControllerEnv>);
    const subscriptions = new SubscriptionService(() => parts.catalog.registry, () => parts.catalog.refresh(), parts.db, store);
    app.route("/aps/2/resources", subscriptionRoutes(subscriptions, { registry: () => parts.catalog.registry, store, access, callers, instances: applications.instances, tickets: applications.tickets, oauth: (c) => oauth!.verify(c) }) as unknown as Hono<ControllerEnv>);
  }
  // Every other /aps/2 call: an application instance by its credentials, else a token (auth/application-caller.ts).
  const applicationCallers = applications ? new ApplicationCallers(applications.instances, store, applications.tickets, [(c) => oauth!.verify(c)]) : undefined;
  app.use("/aps/2/*", async (c, next) => {
    const application = applicationCallers ? await applicationCallers.resolve(c as never) : undefined;
    const caller = application ?? (await callers.resolve(c.req.header("aps-token"), requestSource(c)));
    // A copy: the resolved caller may be cached and shared by other requests.
    c.set("caller", { ...caller, request: c.get("request") });
    await next();
    // A sub-request an application sends with its transaction id joins that transaction; the reply says so.
    const tx = application && c.req.header("aps-transaction-id");
    if (tx) c.res.headers.set("APS-Transaction-ID", tx);
  });
  app.route("/aps/2/resources", resourceRoutes({ resources, relations: new RelationService(context, resources), operations, suspension }));
  app.route("/aps/2/types", typeRoutes(parts.catalog));
  app.route("/aps/2/packages", packageRoutes(parts.catalog, parts.db, parts.compiler, parts.logger));
  app.route("/aps/2/navigation", navigationRoutes(parts.db, { ...DEFAULT_NAVIGATION_LIMITS, ...identity.navigation }));
  app.route("/aps/2/customers", customerRoutes(suspension));
  app.route("/aps/2/static", staticOperationRoutes(operations));
  app.route("/aps/2/services", platformServiceRoutes());
  if (applications) {
    app.route("/aps/2/instances", instanceRoutes(applications.instances));
    app.route("/aps/2/applications", applicationInstanceRoutes(applications.instances, parts.catalog));
    app.route("/aps/2/tasks", taskRoutes(applications.tasks));
    app.route("/aps/2/events", eventOutboxRoutes(applications.events.store, applications.events.nudge));
  }
  app.all("/aps/2/resources/*", (c) => {
    throw new ControllerError(405, `${c.req.method} is not an operation of /aps/2/resources; use GET, POST, PUT or DELETE.`);
  });

  app.notFound((c) => sendJson(c, new ControllerError(404, `Nothing is served at ${new URL(c.req.url).pathname}.`).toBody(), 404));
  app.onError((error, c) => {
    if (error instanceof ControllerError) return sendJson(c, error.toBody(), error.status, error.headers);
    if (error instanceof ApplicationReplyError) {
      // An application's own error reply goes back to the caller with its status (aps-facts 4).
      const type = error.reply.headers["content-type"];
      return new Response(error.reply.body, { status: error.reply.status, headers: typeof type === "string" ? { "content-type": type } : {} });
    }
    if (isOwnerAccountGone(error)) {
      // A provisioning that raced the delete of its account (the revocation feed had not told this process yet).
      return sendJson(c, new ControllerError(401, "The account this APS-Token names no longer exists; nothing was stored.").toBody(), 401);
    }
    if (isStatementTimeout(error)) {
      (c.get("log") ?? parts.logger).warn({ method: c.req.method, path: new URL(c.req.url).pathname }, "statement time-out");
      return sendJson(c, new ControllerError(503, "The database did not finish this request within the statement time-out; narrow the query (a filter, limit(...)) or try again later.").toBody(), 503);
    }
    // Never error.message or stack as they are: a database error quotes the statement's parameters (a whole body).
    (c.get("log") ?? parts.logger).error({ method: c.req.method, path: new URL(c.req.url).pathname, error: loggableError(error) }, "unexpected error");
    return sendJson(c, new ControllerError(500, "The controller failed to handle this request; the error is in its log.").toBody(), 500);
  });
  return { app, runTask: (task) => attemptTask(context, task), metrics, stop: () => revocations.stop() };
}

/** What every resource feature shares (resources/resource-context.ts); each feature is a module of its own. */
function resourceContext(parts: ControllerParts, store: ResourceStore): ResourceContext {
  const applications = parts.applications;
  return {
    catalog: parts.catalog,
    store,
    rows: new ResourceRows(parts.sealer),
    access: new ResourceAccess(parts.catalog, store),
    ...(applications
      ? { applications: { targetFor: (type) => applications.instances.targetFor(type), targetOf: (id) => applications.instances.targetOf(id), forwarder: applications.forwarder, tasks: applications.tasks, tickets: applications.tickets, claims: applications.claims, intents: applications.intents, provider: applications.provider } }
      : {}),
  };
}
