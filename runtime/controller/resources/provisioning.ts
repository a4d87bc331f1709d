/**
 * Provisioning (`POST /aps/2/resources`, docs/aps/lifecycle.md, "Base operations"): validation
 * against the type and the caller's roles (docs/aps/resources.md; docs/aps/security.md, "Access
 * checks"), links named in the body or implied by the serving instance, the application's call
 * first for an application type (only what it accepted is stored), then one insert with its links
 * and events. A provisioning that will not be stored is undone at the application
 * (abandonProvisioning).
 */
import { randomUUID } from "node:crypto";
import { RoleBit } from "../../common/actor.ts";
import { CoreTypeIds, ResourceStatus } from "../../common/core-types.ts";
import { linkRefId } from "../../common/link-ref.ts";
import { requireOperation } from "../access/resource-access.ts";
import type { Caller } from "../auth/caller.ts";
import { SERVING_APPLICATION, SERVING_ROLES } from "../auth/roles.ts";
import { CoreEvent } from "../events/core-events.ts";
import { linkEvents } from "../events/link-events.ts";
import { raise } from "../events/raise.ts";
import type { EndpointTarget } from "../forward/endpoint-client.ts";
import { ApplicationReplyError, type ForwardOrigin, type ForwardOutcome } from "../forward/forwarder.ts";
import type { ServingInstance } from "../instances/instance-lookup.ts";
import { implementsType, type RegistryType } from "../registry.ts";
import { isLinkTargetGone } from "../store/link-target-error.ts";
import type { Db } from "../store/open-database.ts";
import { applyChanges } from "../store/resource-rows.ts";
import type { StoredLink, StoredResource } from "../store/resource-store.ts";
import { ControllerError, invalidBody } from "../support/errors.ts";
import { applicationBody, type BodyMeta } from "./application-body.ts";
import { applicationsFor, forwardOrigin } from "./applications.ts";
import { withApsLinks } from "./aps-links.ts";
import type { ResourceContext } from "./resource-context.ts";
import { subscriptionOf, type TargetedLink } from "./resource-subscription.ts";
import { callerView } from "./resource-view.ts";
import { acceptedFromApplication, validatorOf } from "./type-catalog.ts";
import type { WriteResult } from "./write-result.ts";

const ACCOUNT_TYPE = CoreTypeIds.account;

export async function provision(ctx: ResourceContext, caller: Caller, body: unknown): Promise<WriteResult> {
  const { type, typeId, input } = await typeToProvision(ctx, body);
  // Read after the type is found: finding it may have refreshed the registry.
  const registry = ctx.catalog.registry;
  const owner = ownerFor(ctx, caller);
  let served: ServingInstance | undefined;
  // An application creating a resource of a type it serves itself may write what only the
  // application writes (docs/aps/security.md, "Applications as callers").
  if (caller.instanceId && type.servedBy === "application")
    served = await applicationsFor(ctx.applications, type).targetFor(type);
  const roles =
    served && served.target.instanceId === caller.instanceId ? SERVING_ROLES : RoleBit.owner | RoleBit.public;
  requireOperation(type, "provision", roles);
  const errors = validatorOf(ctx.catalog, type).validateCreate(input, {
    application: (roles & SERVING_APPLICATION) !== 0,
    roles,
  });
  if (errors.length) throw invalidBody(errors);

  const id = randomUUID();
  // Only what was sent: `default` is a hint for clients preparing the body (docs/aps/resources.md,
  // "Property attributes").
  let values: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) if (k !== "aps" && !(k in type.relations)) values[k] = v;
  let outcome: ForwardOutcome | undefined;
  let transactionId = "";
  const implicit = new Map<string, string>();
  if (type.servedBy === "application") {
    served ??= await applicationsFor(ctx.applications, type).targetFor(type);
    // A relation to the application root is the instance that serves the resource: the controller links it.
    const root = served.rootResource;
    for (const [name, rel] of Object.entries(type.relations)) {
      if (root && !rel.collection && input[name] === undefined && implementsType(registry, root.typeId, rel.typeId))
        implicit.set(name, root.id);
    }
  }
  const newLinks = await linksOf(ctx, type, input, caller, implicit);
  const subscription = await subscriptionOf(ctx, caller, type, input, newLinks);
  const isAccount = implementsType(registry, typeId, ACCOUNT_TYPE);
  const now = new Date().toISOString();
  if (served) {
    const meta = {
      id,
      typeId,
      status: ResourceStatus.provisioning,
      revision: 1,
      modified: now,
      subscription: subscription ?? null,
      packageId: served.packageId,
    };
    // What the application may read while it creates the resource: what it will be linked to (role-sql.ts reachedByInstance).
    const reaches = [
      ...newLinks.map((l) => l.targetId),
      ...(subscription ? [subscription] : []),
      ...(isAccount ? [] : [owner.id]),
    ];
    ({ outcome, values, transactionId } = await provisionAtApplication(
      ctx,
      caller,
      type,
      meta,
      served.target,
      values,
      newLinks,
      reaches,
    ));
  }
  const row = ctx.rows.newRow(
    {
      id,
      typeId,
      status: outcome?.kind === "accepted" ? ResourceStatus.provisioning : ResourceStatus.ready,
      ownerAccount: isAccount ? id : owner.id,
      ownerPath: isAccount ? `${owner.path}${id}/` : owner.path,
      packageId: served?.packageId ?? null,
      instanceId: served?.target.instanceId ?? null,
      subscription: subscription ?? null,
    },
    type.properties,
    values,
    now,
  );
  const accepted = outcome?.kind === "accepted" ? outcome : undefined;
  const alsoDo = accepted
    ? async (tx: Db) => {
        await ctx.applications!.tasks.schedule(tx, {
          resourceId: id,
          operation: "provision",
          instanceId: served!.target.instanceId,
          call: accepted.call,
          info: accepted.info,
          retrySeconds: accepted.retrySeconds,
        });
      }
    : undefined;
  // An accepted resource becomes available when its task ends; its links exist from now on.
  const events = [
    ...(accepted ? [] : [raise(registry, CoreEvent.available, row, { linkedIds: newLinks.map((l) => l.targetId) })]),
    ...newLinks.flatMap((l) => linkEvents(registry, CoreEvent.linked, row, l.relation, l.target ?? l.targetId)),
  ];
  let inserted: StoredResource;
  try {
    inserted = await ctx.store.insert(row, newLinks, {
      ...(alsoDo ? { alsoDo } : {}),
      ...(served ? { staged: true, intent: true } : {}),
      events,
    });
  } catch (error) {
    // The application created it (or accepted to): it is told to remove it, as nothing is stored.
    if (served)
      await abandonProvisioning(ctx, type, id, served.target, { ...forwardOrigin(caller), transactionId }, true);
    if (isLinkTargetGone(error))
      throw new ControllerError(
        409,
        `A resource this one links to (${newLinks.map((l) => l.targetId).join(", ")}) was removed or is being unprovisioned while it was provisioned; nothing was created${served ? " (the application was told to remove it)" : ""}.`,
      );
    throw error;
  }
  const resource = callerView(caller, inserted, type, roles, newLinks, ctx.rows);
  return accepted ? { resource, accepted: { info: accepted.info, retrySeconds: accepted.retrySeconds } } : { resource };
}

/** The type a provisioning body names in `aps.type`, and the body with its `aps.links` taken in (aps-links.ts). */
async function typeToProvision(
  ctx: ResourceContext,
  body: unknown,
): Promise<{ type: RegistryType; typeId: string; input: Record<string, unknown> }> {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new ControllerError(400, "The body must be a JSON object: the properties of the new resource and aps.type.");
  const input = body as Record<string, unknown>;
  const typeId = (input.aps as { type?: unknown } | undefined)?.type;
  if (typeof typeId !== "string")
    throw new ControllerError(
      400,
      'Name the type of the new resource in aps.type, e.g. {"aps": {"type": "http://.../1.0"}, ...}.',
    );
  if (!ctx.catalog.registry.has(typeId)) await ctx.catalog.refresh();
  const type = ctx.catalog.registry.get(typeId);
  if (!type)
    throw new ControllerError(
      400,
      `aps.type ${typeId} is not a type this controller knows; list them at /aps/2/types.`,
    );
  if (!type.isResource)
    throw new ControllerError(
      400,
      `${type.name} (${typeId}) does not implement core/resource, so it cannot have resources.`,
    );
  return { type, typeId, input: withApsLinks(type, input) };
}

/**
 * The application creates it first; only what it accepted is stored (no half-created resource).
 * The values to store are what was sent with what the application returned.
 */
async function provisionAtApplication(
  ctx: ResourceContext,
  caller: Caller,
  type: RegistryType,
  meta: BodyMeta,
  target: EndpointTarget,
  values: Record<string, unknown>,
  newLinks: readonly StoredLink[],
  reaches: readonly string[],
): Promise<{ outcome: ForwardOutcome; values: Record<string, unknown>; transactionId: string }> {
  const app = applicationsFor(ctx.applications, type);
  const id = meta.id;
  const transactionId = randomUUID();
  // Both committed before the call, in one statement: the transaction, which any process reads
  // when the application calls back with its id (forward/transaction-store.ts), and the intent:
  // if this process dies before it stores the resource, the reconciler removes what the
  // application created (intents/intent-reconciler.ts). Its link targets are what the
  // application may read while it works (role-sql.ts reachedByInstance). If the statement
  // fails, neither is there and nothing is sent.
  const claims = { resourceId: id, typeId: type.id, instanceId: target.instanceId };
  const recordedAt = Date.now();
  await app.intents.record({ ...claims, transactionId, reaches });
  app.transactions.recordedWithIntent(transactionId, claims, recordedAt);
  try {
    const outcome = await app.forwarder.provision(target, type, applicationBody(meta, type, values, newLinks), {
      ...forwardOrigin(caller),
      transactionId,
    });
    const merged = { ...values };
    applyChanges(merged, acceptedFromApplication(ctx.catalog, type, outcome.properties));
    return { outcome, values: merged, transactionId };
  } catch (error) {
    // The application's own error reply: it created nothing. Anything else (no answer, an
    // answer the protocol does not have, properties that are not valid) may have left a
    // resource there.
    await abandonProvisioning(
      ctx,
      type,
      id,
      target,
      { ...forwardOrigin(caller), transactionId },
      !(error instanceof ApplicationReplyError),
    );
    throw error;
  }
}

/**
 * A provisioning sent to the application that will not be stored: what was staged for it goes,
 * and when the application may hold the resource (`undo`) it is told to remove it (`DELETE`,
 * same transaction id). The intent goes once nothing is left there; when the application
 * cannot be told now, the intent stays and the reconciler tries again after its lease.
 */
async function abandonProvisioning(
  ctx: ResourceContext,
  type: RegistryType,
  id: string,
  target: EndpointTarget,
  origin: ForwardOrigin & { readonly transactionId: string },
  undo: boolean,
): Promise<void> {
  const app = ctx.applications!;
  await ctx.store.dropStaged(id).catch(() => undefined);
  if (undo) {
    try {
      const outcome = await app.forwarder.unprovision(target, type, id, origin);
      if (outcome.kind === "accepted") return;
    } catch (error) {
      if (!(error instanceof ApplicationReplyError && (error.reply.status === 404 || error.reply.status === 410)))
        return;
    }
  }
  await app.intents.drop(id).catch(() => undefined);
}

/** Links named in a provision body, with the rows they point at: targets must exist, be visible and have the relation's type. */
async function linksOf(
  ctx: ResourceContext,
  type: RegistryType,
  input: Record<string, unknown>,
  caller: Caller,
  implicit: ReadonlyMap<string, string>,
): Promise<TargetedLink[]> {
  const out: TargetedLink[] = [];
  for (const [name, rel] of Object.entries(type.relations)) {
    const root = implicit.get(name);
    if (root) {
      out.push({ relation: name, targetId: root, singular: !rel.collection });
      continue;
    }
    const value = input[name];
    const refs = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
    if (rel.required && refs.length === 0)
      throw new ControllerError(
        400,
        `"${name}" is a required relation: link it on creation with "${name}": {"aps": {"id": "<resource id>"}}.`,
      );
    for (const ref of refs) {
      // The type's validators checked the shape before: every value here is a link reference.
      const targetId = linkRefId(ref)!;
      const target = (await ctx.access.linkTarget(caller, targetId))?.row;
      if (!target)
        throw new ControllerError(
          400,
          `"${name}" links to ${targetId}, which does not exist or is not visible to you.`,
        );
      if (!implementsType(ctx.catalog.registry, target.typeId, rel.typeId))
        throw new ControllerError(
          400,
          `"${name}" must link to a ${rel.typeId}, but ${targetId} is a ${target.typeId}.`,
        );
      // Refused now rather than after the application created it (the database refuses it in any case).
      if (target.status === ResourceStatus.unprovisioning)
        throw new ControllerError(409, `"${name}" links to ${targetId}, which is being unprovisioned.`);
      out.push({ relation: name, targetId, singular: !rel.collection, target });
    }
  }
  return out;
}

/** The account a new resource belongs to: the caller's, or the provider's for an application acting as itself. */
function ownerFor(ctx: ResourceContext, caller: Caller): { id: string; path: string } {
  if (caller.accountId && caller.accountPath) return { id: caller.accountId, path: caller.accountPath };
  const provider = caller.kind === "application" ? ctx.applications?.provider : undefined;
  if (provider) return provider;
  throw new ControllerError(403, "An anonymous token cannot create resources; use a token that names an account.");
}
