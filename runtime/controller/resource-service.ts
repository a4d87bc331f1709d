/**
 * The base operations of SPEC 4.3 on the controller side: provision, retrieve, configure,
 * unprovision and list, with validation, roles and property access (SPEC 2.2, 2.3, 2.7),
 * encryption and optimistic concurrency. HTTP lives in routes/resources.ts.
 */
import { randomUUID } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import { RoleBit } from "../common/actor.ts";
import { parseRql, RqlError } from "../common/rql.ts";
import type { TypeValidator } from "../common/type-validator.ts";
import type { Caller } from "./auth/caller.ts";
import { rolesOn, SERVING_APPLICATION, SERVING_ROLES } from "./auth/roles.ts";
import type { EndpointReply, EndpointTarget } from "./forward/endpoint-client.ts";
import { ApplicationReplyError } from "./forward/forwarder.ts";
import type { Forwarder, ForwardOrigin, ForwardOutcome } from "./forward/forwarder.ts";
import type { ServingInstance } from "./instances/instance-service.ts";
import type { TaskRow, TaskStore } from "./tasks/task-store.ts";
import { CoreEvent } from "./events/core-events.ts";
import { changeEvents, raise } from "./events/raise.ts";
import type { TransactionTickets } from "./forward/transaction-tickets.ts";
import type { Db } from "./store/open-database.ts";
import { ControllerError, invalidBody } from "./support/errors.ts";
import { parseRequestJson } from "./support/http-json.ts";
import type { LazyBody } from "./support/request-body.ts";
import { implementsType, operationAccess, type RegistryType, type TypeRegistry } from "./registry.ts";
import { operationRoutes } from "./operations/operation-router.ts";
import { withApsLinks } from "./resources/aps-links.ts";
import { resourceView, type Reader } from "./resources/resource-view.ts";
import type { ResourceStore, StoredLink, StoredResource } from "./store/resource-store.ts";
import { applyChanges, type ResourceRows } from "./store/resource-rows.ts";
import { readableProperty, visibleRows } from "./store/role-sql.ts";
import { resources } from "./store/schema.ts";
import { accountHoldings, lockAccount } from "./store/account-holdings.ts";
import { filterSql, sortSql } from "./store/rql-sql.ts";
import { isUuid } from "./support/uuid.ts";
import type { IntentStore } from "./intents/intent-store.ts";
import type { ResourceClaims } from "./store/resource-claims.ts";
import { isLinkTargetGone } from "./store/link-target-error.ts";
import { CoreTypeIds, ResourceStatus } from "../common/core-types.ts";

const ACCOUNT_TYPE = CoreTypeIds.account;
/** Default and largest page of a list (aps-facts 1: the documented default is 1000). */
export const DEFAULT_PAGE = 1000;

/** Where the service finds types and their validators (see packages/catalog.ts). */
export interface TypeCatalog {
  readonly registry: TypeRegistry;
  readonly validators: ReadonlyMap<string, TypeValidator>;
  /** Looks for packages imported by other controller instances. */
  refresh(): Promise<void>;
}

/** How the service reaches the application that serves a type (absent: application types answer 502). */
export interface Applications {
  targetFor(type: RegistryType): Promise<ServingInstance>;
  /** The endpoint of an instance by id (for tasks). */
  targetOf(instanceId: string): Promise<EndpointTarget | undefined>;
  readonly forwarder: Forwarder;
  readonly tasks: TaskStore;
  /** Transaction ids that say what a provisioning call is about, for subscriptions made during it. */
  readonly tickets: TransactionTickets;
  /** One configure of a resource at a time while the application is called. */
  readonly claims: ResourceClaims;
  /** Provisionings sent and not yet stored, to undo after a crash or a failure. */
  readonly intents: IntentStore;
  /** The provider's account: where an application acting as itself provisions. */
  readonly provider?: { readonly id: string; readonly path: string };
}

/** A write the application accepted for later (202): the caller gets 202 and the resource in progress. */
export interface WriteResult {
  readonly resource: Record<string, unknown>;
  readonly accepted?: { readonly info: string; readonly retrySeconds: number };
}

/** A page of a list, with what Content-Range needs. */
export interface ResourcePage {
  readonly items: Record<string, unknown>[];
  readonly start: number;
  readonly total: number;
}

/** Resource operations for token callers. */
export class ResourceService {
  constructor(
    private readonly catalog: TypeCatalog,
    private readonly store: ResourceStore,
    private readonly rows: ResourceRows,
    private readonly applications?: Applications,
  ) {}

  /** Read anew on each use: imported packages replace the registry. */
  private get registry(): TypeRegistry {
    return this.catalog.registry;
  }

  async provision(caller: Caller, body: unknown): Promise<WriteResult> {
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw new ControllerError(400, "The body must be a JSON object: the properties of the new resource and aps.type.");
    let input = body as Record<string, unknown>;
    const typeId = (input.aps as { type?: unknown } | undefined)?.type;
    if (typeof typeId !== "string") throw new ControllerError(400, 'Name the type of the new resource in aps.type, e.g. {"aps": {"type": "http://.../1.0"}, ...}.');
    if (!this.registry.has(typeId)) await this.catalog.refresh();
    const type = this.registry.get(typeId);
    if (!type) throw new ControllerError(400, `aps.type ${typeId} is not a type this controller knows; list them at /aps/2/types.`);
    if (!type.isResource) throw new ControllerError(400, `${type.name} (${typeId}) does not implement core/resource, so it cannot have resources.`);
    input = withApsLinks(type, input);
    const owner = this.ownerFor(caller);
    let served: ServingInstance | undefined;
    // An application creating a resource of a type it serves itself may write what only the application writes (SPEC 2.2).
    if (caller.instanceId && type.servedBy === "application") served = await this.applicationsFor(type).targetFor(type);
    const roles = served && served.target.instanceId === caller.instanceId ? SERVING_ROLES : RoleBit.owner | RoleBit.public;
    this.requireOperation(type, "provision", roles);
    const validator = this.validatorOf(type);
    const errors = validator.validateCreate(input, { application: (roles & SERVING_APPLICATION) !== 0, roles });
    if (errors.length) throw invalidBody(errors);

    const id = randomUUID();
    // Only what was sent: `default` is a hint for clients preparing the body (SPEC 2.2).
    let values: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(input)) if (k !== "aps" && !(k in type.relations)) values[k] = v;
    let packageId: string | null = null;
    let outcome: ForwardOutcome | undefined;
    let transactionId = "";
    const implicit = new Map<string, string>();
    if (type.servedBy === "application") {
      served ??= await this.applicationsFor(type).targetFor(type);
      // A relation to the application root is the instance that serves the resource: the controller links it.
      const root = served.rootResource;
      for (const [name, rel] of Object.entries(type.relations)) {
        if (root && !rel.collection && input[name] === undefined && implementsType(this.registry, root.typeId, rel.typeId)) implicit.set(name, root.id);
      }
    }
    const newLinks = await this.linksOf(type, input, caller, implicit);
    if (served) {
      // The application creates it first; only what it accepted is stored (no half-created resource).
      const app = this.applicationsFor(type);
      const { target, packageId: pkg } = served;
      packageId = pkg;
      const linkValues = Object.fromEntries(newLinks.map((l) => [l.relation, { aps: { id: l.targetId } }]));
      transactionId = app.tickets.issue({ resourceId: id, typeId, instanceId: target.instanceId });
      // Committed before the call: if this process dies before it stores the resource, the
      // reconciler removes what the application created (intents/intent-reconciler.ts).
      await app.intents.record({ resourceId: id, typeId, instanceId: target.instanceId, transactionId });
      try {
        outcome = await app.forwarder.provision(target, type, { aps: { type: typeId, id }, ...values, ...linkValues }, { ...this.origin(caller), transactionId });
        values = { ...values, ...this.acceptedFromApplication(type, outcome.properties) };
      } catch (error) {
        // The application's own error reply: it created nothing. Anything else (no answer, an
        // answer the protocol does not have, properties that are not valid) may have left a
        // resource there.
        await this.abandonProvisioning(type, id, target, { transactionId, ...(caller.request ? { request: caller.request } : {}) }, !(error instanceof ApplicationReplyError));
        throw error;
      }
    }
    const isAccount = implementsType(this.registry, typeId, ACCOUNT_TYPE);
    const row = this.rows.newRow(
      {
        id,
        typeId,
        status: outcome?.kind === "accepted" ? ResourceStatus.provisioning : ResourceStatus.ready,
        ownerAccount: isAccount ? id : owner.id,
        ownerPath: isAccount ? `${owner.path}${id}/` : owner.path,
        packageId,
        instanceId: served?.target.instanceId ?? null,
      },
      type.properties,
      values,
    );
    const accepted = outcome?.kind === "accepted" ? outcome : undefined;
    const alsoDo = accepted
      ? async (tx: Db) => {
          await this.applications!.tasks.schedule(tx, { resourceId: id, operation: "provision", instanceId: served!.target.instanceId, call: accepted.call, info: accepted.info, retrySeconds: accepted.retrySeconds });
        }
      : undefined;
    // An accepted resource becomes available when its task ends; its links exist from now on.
    const events = [...(accepted ? [] : [raise(this.registry, CoreEvent.available, row, { linkedIds: newLinks.map((l) => l.targetId) })]), ...newLinks.map((l) => raise(this.registry, CoreEvent.linked, row, { relation: l.relation, targetId: l.targetId, linkedIds: [l.targetId] }))];
    let inserted: StoredResource;
    try {
      inserted = await this.store.insert(row, newLinks, { ...(alsoDo ? { alsoDo } : {}), ...(served ? { staged: true, intent: true } : {}), events });
    } catch (error) {
      // The application created it (or accepted to): it is told to remove it, as nothing is stored.
      if (served) await this.abandonProvisioning(type, id, served.target, { transactionId, ...(caller.request ? { request: caller.request } : {}) }, true);
      if (isLinkTargetGone(error)) throw new ControllerError(409, `A resource this one links to (${newLinks.map((l) => l.targetId).join(", ")}) was removed or is being unprovisioned while it was provisioned; nothing was created${served ? " (the application was told to remove it)" : ""}.`);
      throw error;
    }
    const resource = this.view(caller, inserted, type, roles, newLinks, true);
    return outcome?.kind === "accepted" ? { resource, accepted: { info: outcome.info, retrySeconds: outcome.retrySeconds } } : { resource };
  }

  async retrieve(caller: Caller, id: string): Promise<Record<string, unknown>> {
    const { row, type, roles, links } = await this.visible(caller, id, "retrieve");
    return this.view(caller, row, type, roles, links, true);
  }

  /**
   * Configures of one resource run one at a time (issue 15): a controller type's in one
   * transaction with the row locked; an application type's under a claim
   * (store/resource-claims.ts) held from the revision check through the application's call to
   * the commit. A stale `aps.revision` is refused before anything is forwarded, and what is
   * stored is always what the application applied last.
   */
  async configure(caller: Caller, id: string, body: unknown): Promise<WriteResult> {
    const { row: seen, type, roles } = await this.visible(caller, id, "configure");
    const errors = this.validatorOf(type).validateUpdate(body, { application: (roles & SERVING_APPLICATION) !== 0, roles });
    if (errors.length) throw invalidBody(errors);
    const input = body as Record<string, unknown>;
    const wanted = (input.aps as { revision?: unknown } | undefined)?.revision;
    const requireRevision = (row: StoredResource) => {
      if (wanted !== undefined && wanted !== row.revision) throw new ControllerError(409, `The resource is at revision ${row.revision}, not ${String(wanted)}: someone changed it since you read it. Read it again and repeat your change.`);
    };
    requireRevision(seen);
    if (type.servedBy !== "application") {
      const updated = await this.store.transaction(async (tx) => {
        const row = await this.store.getLocked(id, tx);
        if (!row) throw new ControllerError(404, `Resource ${id} does not exist.`);
        requireRevision(row);
        return this.storeConfigured(tx, row, type, input, {});
      });
      return { resource: this.view(caller, updated, type, roles, await this.store.linksFrom(id), true) };
    }
    const app = this.applicationsFor(type);
    const claim = await app.claims.acquire(id, "configure");
    if (!claim) throw new ControllerError(404, `Resource ${id} does not exist.`);
    let stored = false;
    try {
      const row = await this.store.get(id);
      if (!row) throw new ControllerError(404, `Resource ${id} does not exist.`);
      requireRevision(row);
      if (row.status === ResourceStatus.unprovisioning) throw new ControllerError(409, "The resource is being unprovisioned; it cannot be configured.");
      await this.requireNoPendingTask(id);
      const changes = applyChanges(this.rows.values(row), input);
      const { target } = await app.targetFor(type);
      const outcome = await app.forwarder.configure(target, type, id, changes, this.origin(caller));
      const returned = this.acceptedFromApplication(type, outcome.properties);
      const accepted = outcome.kind === "accepted" ? outcome : undefined;
      const updated = await this.store.transaction(async (tx) => {
        // Read again, locked: a write that needs no claim (the application's own PUT, a
        // suspend) may have come in meanwhile; the change is applied on top of it.
        const now = await this.store.getLocked(id, tx);
        if (!now) throw new ControllerError(404, `Resource ${id} was removed while it was configured.`);
        const u = await this.storeConfigured(tx, now, type, input, returned, accepted ? ResourceStatus.configuring : undefined);
        if (accepted) await app.tasks.schedule(tx, { resourceId: id, operation: "configure", instanceId: target.instanceId, call: accepted.call, info: accepted.info, retrySeconds: accepted.retrySeconds });
        await claim.dropIn(tx);
        return u;
      });
      stored = true;
      const resource = this.view(caller, updated, type, roles, await this.store.linksFrom(id), true);
      return accepted ? { resource, accepted: { info: accepted.info, retrySeconds: accepted.retrySeconds } } : { resource };
    } finally {
      await claim.end(stored);
    }
  }

  /** Writes `input` (and what the application returned) onto `row`, locked in `tx`, with its events. */
  private async storeConfigured(tx: Db, row: StoredResource, type: RegistryType, input: Record<string, unknown>, returned: Record<string, unknown>, status?: string): Promise<StoredResource> {
    const before = this.rows.values(row);
    const current = { ...before };
    applyChanges(current, input);
    Object.assign(current, returned);
    // An accepted configure is "changed" when its task ends.
    const events = status ? [] : changeEvents(this.registry, row, before, current);
    const updated = await this.store.update(row.id, row.revision, { ...this.rows.columns(type.properties, row.id, current), modified: new Date().toISOString(), ...(status ? { status } : {}) }, tx, events);
    // The row is locked: its revision cannot have moved.
    if (!updated) throw new Error(`resource ${row.id} changed under its row lock`);
    return updated;
  }

  async unprovision(caller: Caller, id: string): Promise<{ accepted?: { info: string; retrySeconds: number } }> {
    const { type, row } = await this.visible(caller, id, "unprovision");
    const isAccount = row.ownerAccount === row.id;
    if (isAccount) await this.store.transaction((tx) => this.requireNothingHeld(tx, row, type));
    // Marked aps:unprovisioning and committed before anything else: from then on no link to it
    // is accepted (the database refuses them, migration 0007), and the strong links checked in
    // that transaction are all there will be.
    const previous = await this.store.beginUnprovisioning(id, (linksTo) => {
      const strong = linksTo.filter((l) => this.registry.get(l.sourceType)?.relations[l.relation]?.required);
      if (strong.length) {
        const first = strong[0]!;
        throw new ControllerError(409, `${strong.length} resource(s) hold a strong link to this one (first: ${first.sourceId} through "${first.relation}"); remove them first.`);
      }
    });
    if (previous === undefined) throw new ControllerError(404, `Resource ${id} does not exist.`);
    try {
      return await this.unprovisionMarked(caller, id, row, type, isAccount);
    } catch (error) {
      // Refused (by the application, or the checks below): the resource is as it was.
      await this.store.endUnprovisioning(id, previous).catch(() => undefined);
      throw error;
    }
  }

  /** The rest of {@link unprovision}, once the resource is marked `aps:unprovisioning`. */
  private async unprovisionMarked(caller: Caller, id: string, row: StoredResource, type: RegistryType, isAccount: boolean): Promise<{ accepted?: { info: string; retrySeconds: number } }> {
    if (type.servedBy === "application") {
      await this.requireNoPendingTask(id);
      const app = this.applicationsFor(type);
      const { target } = await app.targetFor(type);
      const outcome = await app.forwarder.unprovision(target, type, id, this.origin(caller));
      if (outcome.kind === "accepted") {
        await this.store.transaction(async (tx) => {
          await this.store.update(id, row.revision, { body: row.body, secrets: row.secrets, modified: new Date().toISOString(), status: ResourceStatus.unprovisioning }, tx);
          await app.tasks.schedule(tx, { resourceId: id, operation: "unprovision", instanceId: target.instanceId, call: outcome.call, info: outcome.info, retrySeconds: outcome.retrySeconds });
        });
        return { accepted: { info: outcome.info, retrySeconds: outcome.retrySeconds } };
      }
    }
    if (isAccount) {
      // Checked again with the account's row locked: nothing is provisioned into it between the check and the delete.
      await this.store.transaction(async (tx) => {
        if (!(await lockAccount(tx, id))) throw new ControllerError(404, `Resource ${id} does not exist.`);
        await this.requireNothingHeld(tx, row, type);
        await this.store.delete(id, tx, [raise(this.registry, CoreEvent.removed, row)]);
      });
      return {};
    }
    if (!(await this.store.delete(id, undefined, [raise(this.registry, CoreEvent.removed, row)]))) throw new ControllerError(404, `Resource ${id} does not exist.`);
    return {};
  }

  /**
   * 409 while an account holds resources (store/account-holdings.ts): deleting it would leave
   * them without an owner, and its tokens are refused once it is gone (auth/caller.ts).
   */
  private async requireNothingHeld(db: Db, account: StoredResource, type: RegistryType): Promise<void> {
    const collections = Object.entries(type.relations).filter(([, r]) => r.collection).map(([name]) => name);
    const held = await accountHoldings(db, account.id, account.ownerPath, collections);
    if (held.total > 0) {
      throw new ControllerError(409, `Account ${account.id} still holds ${held.total} resource(s) (its own, its accounts' and those its ${collections.length ? collections.join(", ") : "collections"} link to; first: ${held.first.join(", ")}); unprovision or unlink them first.`);
    }
  }

  /**
   * One attempt of an asynchronous operation (SPEC 3), for the task runner: repeats the call
   * with `APS-Request-Phase: async`; a success completes the operation, another 202 reschedules
   * it, anything else fails the task and leaves the resource in its in-progress status.
   */
  async runTask(task: TaskRow): Promise<"done" | "rescheduled" | "failed"> {
    const app = this.applications!;
    const row = await this.store.get(task.resourceId);
    const type = row && this.registry.get(row.typeId);
    const target = await app.targetOf(task.instanceId);
    if (!row || !type || !target) {
      await app.tasks.fail(task.id, !target ? `instance ${task.instanceId} no longer exists` : `resource ${task.resourceId} no longer exists`);
      return "failed";
    }
    let outcome: ForwardOutcome;
    try {
      const ok = task.operation === "provision" ? [200, 201, 204] : [200, 204];
      outcome = await app.forwarder.repeat(target, { method: task.method, path: task.path, ...(task.body ? { body: task.body } : {}), transactionId: task.transactionId, ...(task.identityId ? { identityId: task.identityId } : {}) }, ok);
    } catch (error) {
      const reason = error instanceof ApplicationReplyError ? `the application answered ${error.reply.status}: ${error.reply.body.toString("utf8").slice(0, 500)}` : (error as Error).message;
      await app.tasks.fail(task.id, reason);
      return "failed";
    }
    let merged = this.rows.values(row);
    try {
      merged = { ...merged, ...this.acceptedFromApplication(type, outcome.properties) };
    } catch (error) {
      await app.tasks.fail(task.id, (error as Error).message);
      return "failed";
    }
    const columns = this.rows.columns(type.properties, row.id, merged);
    if (outcome.kind === "accepted") {
      await this.store.update(row.id, row.revision, { ...columns, modified: new Date().toISOString() });
      await app.tasks.reschedule(task.id, outcome.info, outcome.retrySeconds);
      return "rescheduled";
    }
    await this.store.transaction(async (tx) => {
      if (task.operation === "unprovision") await this.store.delete(row.id, tx, [raise(this.registry, CoreEvent.removed, row)]);
      else {
        const events = task.operation === "provision" ? [raise(this.registry, CoreEvent.available, row)] : changeEvents(this.registry, row, this.rows.values(row), merged);
        await this.store.update(row.id, row.revision, { ...columns, modified: new Date().toISOString(), status: ResourceStatus.ready }, tx, events);
      }
      await app.tasks.finish(tx, task.id);
    });
    return "done";
  }

  /**
   * A provisioning sent to the application that will not be stored: what was staged for it goes,
   * and when the application may hold the resource (`undo`) it is told to remove it (`DELETE`,
   * same transaction id). The intent goes once nothing is left there; when the application
   * cannot be told now, the intent stays and the reconciler tries again after its lease.
   */
  private async abandonProvisioning(type: RegistryType, id: string, target: EndpointTarget, origin: { readonly transactionId: string; readonly request?: ForwardOrigin["request"] }, undo: boolean): Promise<void> {
    const app = this.applications!;
    await this.store.dropStaged(id).catch(() => undefined);
    if (undo) {
      try {
        const outcome = await app.forwarder.unprovision(target, type, id, origin);
        if (outcome.kind === "accepted") return;
      } catch (error) {
        if (!(error instanceof ApplicationReplyError && (error.reply.status === 404 || error.reply.status === 410))) return;
      }
    }
    await app.intents.drop(id).catch(() => undefined);
  }

  private async requireNoPendingTask(id: string): Promise<void> {
    if (await this.applications?.tasks.pendingFor(id)) throw new ControllerError(409, "An asynchronous operation on this resource is still running; wait until it ends.");
  }

  /**
   * A custom operation on a resource (SPEC 4.4): the caller needs access to the resource and to
   * the operation; parameters are converted and checked, then the call goes to the application
   * and its reply comes back as it is.
   */
  async custom(caller: Caller, id: string, method: string, rest: string, rawQuery: string, body: LazyBody | undefined): Promise<EndpointReply> {
    const { type, roles } = await this.visible(caller, id, "retrieve");
    return this.callOperation(caller, type, roles, id, method, rest, rawQuery, body);
  }

  /**
   * A static custom operation (SPEC 4.4 `static`): called on the type rather than on a resource,
   * at `/aps/2/static/<type id>/<path>`, forwarded to `<endpoint>/<service>/<path>`. The caller
   * acts in its own account, as when it provisions.
   */
  async staticOperation(caller: Caller, typeId: string, method: string, rest: string, rawQuery: string, body: LazyBody | undefined): Promise<EndpointReply> {
    if (!this.registry.has(typeId)) await this.catalog.refresh();
    const type = this.registry.get(typeId);
    if (!type) throw new ControllerError(404, `Type ${typeId} is not known to this controller.`);
    if (caller.kind === "application" && caller.instanceId) {
      // Its own type's static operations are the application's; another's are open to it as to the public.
      const own = type.servedBy === "application" && (await this.applicationsFor(type).targetFor(type)).target.instanceId === caller.instanceId;
      return this.callOperation(caller, type, own ? SERVING_ROLES : RoleBit.public, undefined, method, rest, rawQuery, body);
    }
    if (!caller.accountId) throw new ControllerError(403, "An anonymous token cannot call operations; use a token that names an account.");
    return this.callOperation(caller, type, RoleBit.owner | RoleBit.public, undefined, method, rest, rawQuery, body);
  }

  private async callOperation(caller: Caller, type: RegistryType, roles: number, id: string | undefined, method: string, rest: string, rawQuery: string, lazy: LazyBody | undefined): Promise<EndpointReply> {
    const isStatic = id === undefined;
    // 404 for a path no operation has, 405 for one declared with other verbs (operation-router.ts).
    const match = operationRoutes(type, isStatic).find(type.name, method, rest);
    this.requireOperation(type, match.name, roles);
    // Read only now: a request for an operation that does not exist or is not allowed never costs its body.
    const bytes = lazy ? await lazy.read() : undefined;
    const body = bytes?.length ? { bytes, contentType: lazy!.contentType } : undefined;
    const query = Object.fromEntries(new URLSearchParams(rawQuery));
    let parsedBody: unknown = undefined;
    if (body && /json/i.test(body.contentType)) parsedBody = parseRequestJson(body.bytes.toString("utf8"));
    else if (body) parsedBody = body.bytes;
    const parse = this.validatorOf(type).operations[match.name];
    if (parse) {
      const result = parse({ path: match.params, query, body: parsedBody });
      if (!result.ok) throw invalidBody(result.errors, `The parameters of ${match.name}`);
    }
    const app = this.applicationsFor(type);
    const { target } = await app.targetFor(type);
    return app.forwarder.custom(target, type, method, isStatic ? match.path : `/${id}${match.path}`, rawQuery, this.origin(caller), body);
  }

  /**
   * Suspendable (SPEC 3, 4.5): `disable` takes a ready resource to `aps:disabled`, `enable` takes
   * it back; the other way round is a 409. The application is told first (it ends or restores
   * the service); the status changes only when it agreed.
   */
  async suspend(caller: Caller, id: string, disable: boolean): Promise<Record<string, unknown>> {
    const operation = disable ? "disable" : "enable";
    const { row, type, roles, links } = await this.visible(caller, id, operation);
    if (!type.isSuspendable) throw new ControllerError(404, `${type.name} does not implement core/suspendable, so it has no ${operation} operation.`);
    const from = disable ? ResourceStatus.ready : ResourceStatus.disabled;
    if (row.status !== from) throw new ControllerError(409, `The resource is ${row.status}; ${operation} needs it ${from}.`);
    if (type.servedBy === "application") {
      const app = this.applicationsFor(type);
      const { target } = await app.targetFor(type);
      await app.forwarder.suspend(target, type, id, disable, this.origin(caller));
    }
    const updated = await this.store.update(id, row.revision, { body: row.body, secrets: row.secrets, modified: new Date().toISOString(), status: disable ? ResourceStatus.disabled : ResourceStatus.ready }, undefined, [raise(this.registry, CoreEvent.changed, row)]);
    if (!updated) throw new ControllerError(409, `The resource changed while ${operation} ran; read it again and repeat.`);
    return this.view(caller, updated, type, roles, links, true);
  }

  /**
   * Suspends (or resumes) a customer: every Suspendable resource of the account and the accounts
   * below it is disabled (enabled) through its application (SPEC 3, "customer suspended"). Each
   * failure is tried again, up to three times, then reported; repeating the call is safe, as
   * resources already in the wanted state are left alone.
   */
  async suspendCustomer(caller: Caller, accountId: string, disable: boolean): Promise<{ changed: string[]; unchanged: number; failed: { id: string; error: string }[] }> {
    const account = isUuid(accountId) ? await this.store.get(accountId) : undefined;
    if (!account || account.ownerAccount !== account.id) throw new ControllerError(404, `Account ${accountId} does not exist.`);
    const roles = await rolesOn(account, caller, this.store, this.registry.get(account.typeId));
    if ((roles & RoleBit.admin) === 0) throw new ControllerError(403, "Only an administrator of the customer (an account above it) may suspend or resume it.");
    const suspendable = [...this.registry.values()].filter((t) => t.isSuspendable).map((t) => t.id);
    const from = disable ? ResourceStatus.ready : ResourceStatus.disabled;
    const page = await this.store.list(
      sql`${resources.ownerPath} like ${`${account.ownerPath.replace(/[\\%_]/g, (c) => `\\${c}`)}%`} and ${suspendable.length ? sql`${resources.typeId} in (${sql.join(suspendable.map((id) => sql`${id}`), sql`, `)})` : sql`false`}`,
      [],
      0,
      100_000,
    );
    const changed: string[] = [];
    const failed: { id: string; error: string }[] = [];
    let unchanged = 0;
    for (const row of page.rows) {
      if (row.status !== from) {
        unchanged++;
        continue;
      }
      let error = "";
      for (let attempt = 1; attempt <= 3; attempt++) {
        try {
          await this.suspend(caller, row.id, disable);
          changed.push(row.id);
          error = "";
          break;
        } catch (e) {
          error = e instanceof ApplicationReplyError ? `the application answered ${e.reply.status}` : (e as Error).message;
          await new Promise((r) => setTimeout(r, 100 * attempt));
        }
      }
      if (error) failed.push({ id: row.id, error });
    }
    return { changed, unchanged, failed };
  }

  /** A page of what `queryString` (RQL) matches among what the caller may see; `within` limits it further (a relation's members). */
  async list(caller: Caller, queryString: string, within?: SQL): Promise<ResourcePage> {
    let query;
    try {
      query = parseRql(queryString);
    } catch (error) {
      if (error instanceof RqlError) throw new ControllerError(400, `The query is not valid RQL: ${error.message}.`);
      throw error;
    }
    const where: SQL[] = [visibleRows(this.registry, caller)];
    if (within) where.push(within);
    const readable = (prop: string) => readableProperty(this.registry, prop.split(".")[0]!, caller);
    if (query.filter) where.push(filterSql(query.filter, this.registry, readable));
    const order = query.sort.map((s) => sortSql(s.prop, s.descending, readable));
    const start = query.limit?.start ?? 0;
    const count = Math.min(query.limit?.count ?? DEFAULT_PAGE, DEFAULT_PAGE);
    const page = await this.store.list(sql.join(where, sql` and `), order, start, count);
    const select = query.select ? new Set(query.select) : undefined;
    const items: Record<string, unknown>[] = [];
    for (const row of page.rows) {
      const type = this.registry.get(row.typeId);
      const roles = await rolesOn(row, caller, this.store, type);
      // Lists show links only when select names them (aps-facts 1).
      const links = select && type && Object.keys(type.relations).some((r) => select.has(r)) ? await this.store.linksFrom(row.id) : undefined;
      items.push(resourceView(row, type, readerOf(caller, roles), { rows: this.rows, ...(links ? { links } : {}), ...(select ? { select } : {}), full: false }));
    }
    return { items, start, total: page.total };
  }

  /** The resource, its type and the caller's roles; 404 when the caller may not see it, 403 when the operation is denied. */
  async visible(caller: Caller, id: string, operation: string): Promise<{ row: StoredResource; type: RegistryType; roles: number; links: StoredLink[] }> {
    if (!isUuid(id)) throw new ControllerError(404, `Resource ${id} does not exist.`);
    const found = await this.store.getWithLinks(id);
    const row = found?.row;
    if (row && !this.registry.has(row.typeId)) await this.catalog.refresh();
    const type = row && this.registry.get(row.typeId);
    if (!row || !type) throw new ControllerError(404, `Resource ${id} does not exist.`);
    const retrieve = operationAccess(type, "retrieve");
    const roles = await rolesOn(row, caller, this.store, type);
    if ((roles & retrieve) === 0) throw new ControllerError(404, `Resource ${id} does not exist.`);
    this.requireOperation(type, operation, roles);
    return { row, type, roles, links: found.links };
  }

  private requireOperation(type: RegistryType, operation: string, roles: number): void {
    const access = operationAccess(type, operation);
    if ((access & roles) === 0) throw new ControllerError(403, `Your roles on this ${type.name} do not allow ${operation}; its access allows ${roleNames(access)}.`);
  }

  applicationsFor(type: RegistryType): Applications {
    if (!this.applications) throw new ControllerError(502, `${type.name} is served by an application, and this controller was started without access to applications.`);
    return this.applications;
  }

  /**
   * `APS-Identity-ID` is the token's user; anonymous tokens and applications (impersonating or
   * not) send none (SPEC 4.7 rule 1). `APS-Application-ID` names the calling instance (rule 2).
   */
  origin(caller: Caller): ForwardOrigin {
    return { ...(caller.userId ? { identityId: caller.userId } : {}), ...(caller.instanceId ? { applicationId: caller.instanceId } : {}), ...(caller.request ? { request: caller.request } : {}) };
  }

  /**
   * What an application returns is merged only when it is valid for the type (values an
   * application writes: everything settable, nothing unknown); `aps` stays the controller's.
   */
  private acceptedFromApplication(type: RegistryType, returned: Record<string, unknown>): Record<string, unknown> {
    const { aps: _aps, ...props } = returned;
    for (const name of Object.keys(type.relations)) delete props[name];
    const errors = this.validatorOf(type).validateUpdate(props, { application: true, roles: 0 });
    if (errors.length) throw new ControllerError(502, `The application returned properties that are not valid for ${type.name}: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}.`);
    return props;
  }

  private validatorOf(type: RegistryType): TypeValidator {
    const v = this.catalog.validators.get(type.id);
    if (!v) throw new ControllerError(500, `No validators were compiled for ${type.id}.`);
    return v;
  }



  /** Links named in a provision body: targets must exist, be visible and have the relation's type. */
  private async linksOf(type: RegistryType, input: Record<string, unknown>, caller: Caller, implicit: ReadonlyMap<string, string> = new Map()): Promise<StoredLink[]> {
    const out: StoredLink[] = [];
    for (const [name, rel] of Object.entries(type.relations)) {
      const root = implicit.get(name);
      if (root) {
        out.push({ relation: name, targetId: root, singular: !rel.collection });
        continue;
      }
      const value = input[name];
      const refs = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
      if (rel.required && refs.length === 0) throw new ControllerError(400, `"${name}" is a required relation: link it on creation with "${name}": {"aps": {"id": "<resource id>"}}.`);
      for (const ref of refs) {
        const targetId = (ref as { aps: { id: string } }).aps.id;
        const target = isUuid(targetId) ? await this.store.get(targetId) : undefined;
        const targetType = target && this.registry.get(target.typeId);
        const roles = target ? await rolesOn(target, caller, this.store, targetType) : 0;
        if (!target || !targetType || (roles & operationAccess(targetType, "retrieve")) === 0) throw new ControllerError(400, `"${name}" links to ${targetId}, which does not exist or is not visible to you.`);
        if (!implementsType(this.registry, target.typeId, rel.typeId)) throw new ControllerError(400, `"${name}" must link to a ${rel.typeId}, but ${targetId} is a ${target.typeId}.`);
        // Refused now rather than after the application created it (the database refuses it in any case).
        if (target.status === ResourceStatus.unprovisioning) throw new ControllerError(409, `"${name}" links to ${targetId}, which is being unprovisioned.`);
        out.push({ relation: name, targetId, singular: !rel.collection });
      }
    }
    return out;
  }

  private view(caller: Caller, row: StoredResource, type: RegistryType, roles: number, links: readonly StoredLink[], full: boolean): Record<string, unknown> {
    return resourceView(row, type, readerOf(caller, roles), { links, rows: this.rows, full });
  }

  /** The account a new resource belongs to: the caller's, or the provider's for an application acting as itself. */
  private ownerFor(caller: Caller): { id: string; path: string } {
    if (caller.accountId && caller.accountPath) return { id: caller.accountId, path: caller.accountPath };
    const provider = caller.kind === "application" ? this.applications?.provider : undefined;
    if (provider) return provider;
    throw new ControllerError(403, "An anonymous token cannot create resources; use a token that names an account.");
  }
}

function roleNames(bits: number): string {
  const names = (Object.keys(RoleBit) as (keyof typeof RoleBit)[]).filter((r) => (bits & RoleBit[r]) !== 0);
  return names.length ? names.join(", ") : "no role";
}

/**
 * How a caller reads a resource it holds `roles` on: the serving application reads everything
 * (SPEC 2.3 rule 6); a caller with application credentials also reads encrypted properties its
 * roles give it access to (SPEC 2.3.4, rule 7); token callers never read them.
 */
function readerOf(caller: Caller, roles: number): Reader {
  return { roles, application: (roles & SERVING_APPLICATION) !== 0, ...(caller.instanceId ? { encrypted: true } : {}) };
}
