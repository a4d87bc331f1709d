/**
 * Configure (`PUT /aps/2/resources/{id}`, docs/aps/lifecycle.md, "Base operations"). Configures of
 * one resource run one at a time (issue 15): a controller type's in one transaction with the row
 * locked; an application type's under a claim (store/resource-claims.ts) held from the revision
 * check through the application's call to the commit. A stale `aps.revision` is refused before
 * anything is forwarded, and what is stored is always what the application applied last.
 */
import { ResourceStatus } from "../../common/core-types.ts";
import type { Caller } from "../auth/caller.ts";
import { SERVING_APPLICATION } from "../auth/roles.ts";
import { changeEvents } from "../events/raise.ts";
import type { RegistryType } from "../registry.ts";
import type { Db } from "../store/open-database.ts";
import { applyChanges } from "../store/resource-rows.ts";
import type { StoredLink, StoredResource } from "../store/resource-store.ts";
import { ControllerError, invalidBody } from "../support/errors.ts";
import { applicationBody } from "./application-body.ts";
import { applicationsFor, forwardOrigin, requireNoPendingTask } from "./applications.ts";
import type { ResourceContext } from "./resource-context.ts";
import { callerView } from "./resource-view.ts";
import { acceptedFromApplication, validatorOf } from "./type-catalog.ts";
import type { WriteResult } from "./write-result.ts";

/** 409 unless `row` is at the revision the caller read (when it named one). */
type RevisionCheck = (row: StoredResource) => void;

export async function configure(ctx: ResourceContext, caller: Caller, id: string, body: unknown): Promise<WriteResult> {
  const { row: seen, type, roles, links } = await ctx.access.visible(caller, id, "configure");
  const errors = validatorOf(ctx.catalog, type).validateUpdate(body, {
    application: (roles & SERVING_APPLICATION) !== 0,
    roles,
  });
  if (errors.length) throw invalidBody(errors);
  const input = body as Record<string, unknown>;
  const wanted = (input.aps as { revision?: unknown } | undefined)?.revision;
  const requireRevision: RevisionCheck = (row) => {
    if (wanted !== undefined && wanted !== row.revision)
      throw new ControllerError(
        409,
        `The resource is at revision ${row.revision}, not ${String(wanted)}: someone changed it since you read it. Read it again and repeat your change.`,
      );
  };
  requireRevision(seen);
  if (type.servedBy === "application")
    return configureAtApplication(ctx, caller, id, type, roles, input, requireRevision, links);
  const updated = await ctx.store.transaction(async (tx) => {
    const row = await ctx.store.getLocked(id, tx);
    if (!row) throw new ControllerError(404, `Resource ${id} does not exist.`);
    requireRevision(row);
    return storeConfigured(ctx, tx, row, type, input, {});
  });
  return { resource: callerView(caller, updated, type, roles, await ctx.store.linksFrom(id), ctx.rows) };
}

/** An application type's configure: under the resource's claim, the application first, then the store. */
async function configureAtApplication(
  ctx: ResourceContext,
  caller: Caller,
  id: string,
  type: RegistryType,
  roles: number,
  input: Record<string, unknown>,
  requireRevision: RevisionCheck,
  links: readonly StoredLink[],
): Promise<WriteResult> {
  const app = applicationsFor(ctx.applications, type);
  const claim = await app.claims.acquire(id, "configure");
  if (!claim) throw new ControllerError(404, `Resource ${id} does not exist.`);
  let stored = false;
  try {
    const row = await ctx.store.get(id);
    if (!row) throw new ControllerError(404, `Resource ${id} does not exist.`);
    requireRevision(row);
    if (row.status === ResourceStatus.unprovisioning)
      throw new ControllerError(409, "The resource is being unprovisioned; it cannot be configured.");
    await requireNoPendingTask(ctx.applications, id);
    // The application is sent the resource as it will be (application-body.ts), not the changes alone.
    const next = ctx.rows.values(row);
    applyChanges(next, input);
    const { target } = await app.targetFor(type);
    // The links read with the resource: a configure does not change them (relinks come after it, relation-service.ts).
    const outcome = await app.forwarder.configure(
      target,
      type,
      id,
      applicationBody(row, type, next, links),
      forwardOrigin(caller),
    );
    const returned = acceptedFromApplication(ctx.catalog, type, outcome.properties);
    const accepted = outcome.kind === "accepted" ? outcome : undefined;
    const updated = await ctx.store.transaction(async (tx) => {
      // Read again, locked: a write that needs no claim (the application's own PUT, a
      // suspend) may have come in meanwhile; the change is applied on top of it.
      const now = await ctx.store.getLocked(id, tx);
      if (!now) throw new ControllerError(404, `Resource ${id} was removed while it was configured.`);
      const u = await storeConfigured(
        ctx,
        tx,
        now,
        type,
        input,
        returned,
        accepted ? ResourceStatus.configuring : undefined,
      );
      if (accepted)
        await app.tasks.schedule(tx, {
          resourceId: id,
          operation: "configure",
          instanceId: target.instanceId,
          call: accepted.call,
          info: accepted.info,
          retrySeconds: accepted.retrySeconds,
        });
      await claim.dropIn(tx);
      return u;
    });
    stored = true;
    const resource = callerView(caller, updated, type, roles, await ctx.store.linksFrom(id), ctx.rows);
    return accepted
      ? { resource, accepted: { info: accepted.info, retrySeconds: accepted.retrySeconds } }
      : { resource };
  } finally {
    await claim.end(stored);
  }
}

/** Writes `input` (and what the application returned) onto `row`, locked in `tx`, with its events. */
async function storeConfigured(
  ctx: ResourceContext,
  tx: Db,
  row: StoredResource,
  type: RegistryType,
  input: Record<string, unknown>,
  returned: Record<string, unknown>,
  status?: string,
): Promise<StoredResource> {
  const before = ctx.rows.values(row);
  const current = { ...before };
  applyChanges(current, input);
  applyChanges(current, returned);
  // An accepted configure is "changed" when its task ends.
  const events = status ? [] : changeEvents(ctx.catalog.registry, row, before, current);
  const updated = await ctx.store.update(
    row.id,
    row.revision,
    {
      ...ctx.rows.columns(type.properties, row.id, current),
      modified: new Date().toISOString(),
      ...(status ? { status } : {}),
    },
    tx,
    events,
  );
  // The row is locked: its revision cannot have moved.
  if (!updated) throw new Error(`resource ${row.id} changed under its row lock`);
  return updated;
}
