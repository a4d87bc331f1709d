/**
 * Suspendable (docs/aps/lifecycle.md, "Suspendable types"): `PUT .../disable` takes a ready
 * resource to `aps:disabled`, `.../enable` takes it back; the other way round is a 409. The
 * application is told first (it ends or restores the service); the status changes only when it
 * agreed. A whole customer is suspended (resumed) at `/aps/2/customers/{id}/suspend` (`/resume`).
 */
import { sql } from "drizzle-orm";
import { RoleBit } from "../../common/actor.ts";
import { ResourceStatus } from "../../common/core-types.ts";
import type { SuspensionReport } from "../../common/suspension-report.ts";
import type { ApsResource } from "../../common/types.ts";
import type { Caller } from "../auth/caller.ts";
import { rolesOn } from "../auth/roles.ts";
import { CoreEvent } from "../events/core-events.ts";
import { raise } from "../events/raise.ts";
import { ApplicationReplyError } from "../forward/forwarder.ts";
import { applicationsFor, forwardOrigin } from "../resources/applications.ts";
import type { ResourceContext } from "../resources/resource-context.ts";
import { callerView } from "../resources/resource-view.ts";
import { likePrefix } from "../store/like-pattern.ts";
import { resources } from "../store/schema.ts";
import { ControllerError } from "../support/errors.ts";
import { isUuid } from "../support/uuid.ts";

export class Suspension {
  constructor(private readonly ctx: ResourceContext) {}

  /** Disables (`disable`) or enables one resource. */
  async suspend(caller: Caller, id: string, disable: boolean): Promise<ApsResource> {
    const { ctx } = this;
    const operation = disable ? "disable" : "enable";
    const { row, type, roles, links } = await ctx.access.visible(caller, id, operation);
    if (!type.isSuspendable)
      throw new ControllerError(
        404,
        `${type.name} does not implement core/suspendable, so it has no ${operation} operation.`,
      );
    const from = disable ? ResourceStatus.ready : ResourceStatus.disabled;
    if (row.status !== from)
      throw new ControllerError(409, `The resource is ${row.status}; ${operation} needs it ${from}.`);
    if (type.servedBy === "application") {
      const app = applicationsFor(ctx.applications, type);
      const { target } = await app.targetFor(type);
      await app.forwarder.suspend(target, type, id, disable, forwardOrigin(caller));
    }
    const updated = await ctx.store.update(
      id,
      row.revision,
      {
        body: row.body,
        secrets: row.secrets,
        modified: new Date().toISOString(),
        status: disable ? ResourceStatus.disabled : ResourceStatus.ready,
      },
      undefined,
      [raise(ctx.catalog.registry, CoreEvent.changed, row)],
    );
    if (!updated)
      throw new ControllerError(409, `The resource changed while ${operation} ran; read it again and repeat.`);
    return callerView(caller, updated, type, roles, links, ctx.rows);
  }

  /**
   * Suspends (or resumes) a customer: every Suspendable resource of the account and the accounts
   * below it is disabled (enabled) through its application (docs/aps/lifecycle.md, "Suspendable
   * types"). Each failure is tried again, up to three times, then reported; repeating the call is
   * safe, as resources already in the wanted state are left alone.
   */
  async suspendCustomer(caller: Caller, accountId: string, disable: boolean): Promise<SuspensionReport> {
    const { store, catalog } = this.ctx;
    const account = isUuid(accountId) ? await store.get(accountId) : undefined;
    if (!account || account.ownerAccount !== account.id)
      throw new ControllerError(404, `Account ${accountId} does not exist.`);
    const roles = await rolesOn(account, caller, store, catalog.registry.get(account.typeId));
    if ((roles & RoleBit.admin) === 0)
      throw new ControllerError(
        403,
        "Only an administrator of the customer (an account above it) may suspend or resume it.",
      );
    const suspendable = [...catalog.registry.values()].filter((t) => t.isSuspendable).map((t) => t.id);
    const from = disable ? ResourceStatus.ready : ResourceStatus.disabled;
    const page = await store.list(
      sql`${resources.ownerPath} like ${likePrefix(account.ownerPath)} and ${
        suspendable.length
          ? sql`${resources.typeId} in (${sql.join(
              suspendable.map((id) => sql`${id}`),
              sql`, `,
            )})`
          : sql`false`
      }`,
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
      const error = await this.suspendWithRetries(caller, row.id, disable);
      if (error) failed.push({ id: row.id, error });
      else changed.push(row.id);
    }
    return { changed, unchanged, failed };
  }

  /** Up to three attempts at {@link suspend}; the last error, or "" when one succeeded. */
  private async suspendWithRetries(caller: Caller, id: string, disable: boolean): Promise<string> {
    let error = "";
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        await this.suspend(caller, id, disable);
        return "";
      } catch (e) {
        error =
          e instanceof ApplicationReplyError ? `the application answered ${e.reply.status}` : (e as Error).message;
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
    return error;
  }
}
