/**
 * `/aps/2/application` (docs/aps/rest-api.md, "Collections"): what an application instance may do
 * with the resources it serves, authenticated by its client certificate. Nothing here is forwarded
 * back to the application: it is the one asking. It may write readonly properties and reads
 * encrypted ones (docs/aps/security.md, "Applications as callers").
 */
import type { ApplicationService as ApplicationServiceInfo } from "../common/package-info.ts";
import type { ApsResource } from "../common/types.ts";
import { randomUUID } from "node:crypto";
import { applicationActor, RoleBit } from "../common/actor.ts";
import { ControllerError, invalidBody } from "./support/errors.ts";
import { CoreEvent } from "./events/core-events.ts";
import { linkEvents } from "./events/link-events.ts";
import { changeEvents, raise } from "./events/raise.ts";
import type { PackageCatalog } from "./packages/catalog.ts";
import { implementsType, type RegistryRelation, type RegistryType } from "./registry.ts";
import { isLinkTargetGone } from "./store/link-target-error.ts";
import { splitAsReadBody } from "./relations/as-read-body.ts";
import { removalEvents } from "./resources/removal-events.ts";
import { linkAnswer, resourceView, type LinkAnswer } from "./resources/resource-view.ts";
import { typeHref } from "./type-document.ts";
import type { InstanceRow } from "./instances/instance-lookup.ts";
import type { LinkChange, ResourceStore, StoredResource } from "./store/resource-store.ts";
import { applyChanges, type ResourceRows } from "./store/resource-rows.ts";
import { isUuid } from "./support/uuid.ts";
import { ResourceStatus } from "../common/core-types.ts";

const ALL_ROLES = RoleBit.admin | RoleBit.owner | RoleBit.referrer | RoleBit.public;
const STATUS = /^[A-Za-z][\w-]*:[A-Za-z][\w-]*$/;

/** The calling instance, found from its certificate. */
export interface ApplicationCaller {
  readonly instance: InstanceRow;
  /** `APS-Resource-ID`: the resource whose owner the application acts for. */
  readonly actingAs?: string;
}

export class ApplicationService {
  constructor(
    private readonly catalog: PackageCatalog,
    private readonly store: ResourceStore,
    private readonly rows: ResourceRows,
    private readonly provider: { id: string; path: string },
  ) {}

  /**
   * The services of the instance's package, keyed by service id, each with the type it serves and
   * where that type's document is: `{"tenant": {"schema": "/aps/2/types/..."}}` is what the Connect
   * extension and FallBall read (oaclient:237-295, resources/__init__.py:215-250; platform-forms row 32).
   */
  services(caller: ApplicationCaller): Record<string, ApplicationServiceInfo> {
    return Object.fromEntries(
      this.serviceTypes(caller).map((t) => [
        t.service!,
        { schema: typeHref(t.id), type: t.id, href: `/aps/2/application/${t.service}` },
      ]),
    );
  }

  /** Registers a resource the application created itself: stored as sent, no call back. */
  async register(caller: ApplicationCaller, service: string, body: unknown): Promise<ApsResource> {
    const type = this.typeOf(caller, service);
    if (typeof body !== "object" || body === null || Array.isArray(body))
      throw new ControllerError(400, "The body must be a JSON object with the resource's properties.");
    const input = body as Record<string, unknown>;
    const errors = this.catalog.validators.get(type.id)?.validateCreate(input, applicationActor) ?? [];
    if (errors.length) throw invalidBody(errors);
    const aps = (input.aps ?? {}) as { status?: unknown; id?: unknown };
    const status = aps.status === undefined ? ResourceStatus.ready : aps.status;
    if (typeof status !== "string" || !STATUS.test(status))
      throw new ControllerError(400, 'aps.status must look like "aps:ready" or "<namespace>:<status>".');
    const id = typeof aps.id === "string" && isUuid(aps.id) ? aps.id : randomUUID();
    if (await this.store.get(id)) throw new ControllerError(409, `A resource ${id} exists already.`);
    const owner = await this.ownerFor(caller);
    // As sent: `default` is a hint for clients (docs/aps/resources.md, "Property attributes"), not
    // filled in.
    const values: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(input)) if (k !== "aps" && !(k in type.relations)) values[k] = v;
    const row = this.rows.newRow(
      {
        id,
        typeId: type.id,
        status,
        ownerAccount: owner.id,
        ownerPath: owner.path,
        packageId: caller.instance.packageId,
        instanceId: caller.instance.id,
      },
      type.properties,
      values,
    );
    // A resource registered in another status (aps:proto, say) becomes available when it turns ready.
    await this.store.insert(row, [], {
      events: status === ResourceStatus.ready ? [raise(this.catalog.registry, CoreEvent.available, row)] : [],
    });
    return this.view((await this.store.get(id))!, type);
  }

  async read(caller: ApplicationCaller, service: string, id: string): Promise<ApsResource> {
    const { row, type } = await this.own(caller, service, id);
    return this.view(row, type);
  }

  /**
   * Configure by the application: readonly properties too, and `aps.status`. The body may be the
   * whole resource as read (the Connect extension PUTs its tenant so,
   * request_tracker_utils.py:349-381): unchanged links and `aps` members go (as-read-body.ts);
   * changed singular links are relinked once the properties are stored, their targets checked first.
   */
  async configure(caller: ApplicationCaller, service: string, id: string, body: unknown): Promise<ApsResource> {
    const { row, type } = await this.own(caller, service, id);
    const status = (body as { aps?: { status?: unknown } } | null)?.aps?.status;
    const { properties, relinks } = splitAsReadBody(type, row, await this.store.linksFrom(id), body);
    for (const r of relinks) {
      const target = r.targetId !== null && isUuid(r.targetId) ? await this.store.get(r.targetId) : undefined;
      if (
        r.targetId !== null &&
        (!target || !implementsType(this.catalog.registry, target.typeId, type.relations[r.relation]!.typeId))
      )
        throw new ControllerError(
          400,
          `"${r.relation}" links to ${type.relations[r.relation]!.typeId}; ${r.targetId} is not one.`,
        );
    }
    const errors = this.catalog.validators.get(type.id)?.validateUpdate(properties, applicationActor) ?? [];
    if (errors.length) throw invalidBody(errors);
    const input = properties as Record<string, unknown>;
    if (status !== undefined && (typeof status !== "string" || !STATUS.test(status)))
      throw new ControllerError(400, 'aps.status must look like "aps:ready" or "<namespace>:<status>".');
    const before = this.rows.values(row);
    const current = { ...before };
    applyChanges(current, input);
    const events =
      status === ResourceStatus.ready && row.status !== ResourceStatus.ready
        ? [raise(this.catalog.registry, CoreEvent.available, row)]
        : changeEvents(this.catalog.registry, row, before, current);
    const updated = await this.store.update(
      id,
      row.revision,
      {
        ...this.rows.columns(type.properties, id, current),
        modified: new Date().toISOString(),
        ...(typeof status === "string" ? { status } : {}),
      },
      undefined,
      events,
    );
    if (!updated) throw new ControllerError(409, "The resource changed meanwhile; read it again and repeat.");
    if (!relinks.length) return this.view(updated, type);
    for (const r of relinks) {
      if (r.targetId !== null) await this.link(caller, service, id, r.relation, r.targetId);
      else {
        const current = (await this.store.linksFrom(id)).find((l) => l.relation === r.relation);
        if (current) await this.unlink(caller, service, id, r.relation, current.targetId);
      }
    }
    return this.view((await this.store.get(id))!, type);
  }

  async unregister(caller: ApplicationCaller, service: string, id: string): Promise<void> {
    const { row } = await this.own(caller, service, id);
    await this.store.delete(id, undefined, await removalEvents(this.store, this.catalog.registry, row));
  }

  /**
   * Links `targetId` into `relation` of one of the instance's resources, the Connect extension's
   * `POST aps/2/application/{service}/{id}/{relation}/{target}` with no body
   * (hub/account_data_change.py:44-58). The application is the one asking: it is not told back.
   */
  async link(
    caller: ApplicationCaller,
    service: string,
    id: string,
    relation: string,
    targetId: string,
  ): Promise<LinkAnswer> {
    const { row, type } = await this.own(caller, service, id);
    const rel = this.relationOf(type, relation);
    const target = isUuid(targetId) ? await this.store.get(targetId) : undefined;
    if (!target) throw new ControllerError(404, `${targetId} is not a resource.`);
    const registry = this.catalog.registry;
    if (!implementsType(registry, target.typeId, rel.typeId))
      throw new ControllerError(400, `"${relation}" links to ${rel.typeId}; ${targetId} is a ${target.typeId}.`);
    const before = rel.collection
      ? new Map<string, StoredResource>()
      : await this.store.rowsById(
          (await this.store.linksFrom(id)).filter((l) => l.relation === relation).map((l) => l.targetId),
        );
    const events = (change: LinkChange) => [
      ...change.replaced.flatMap((old) =>
        linkEvents(registry, CoreEvent.unlinked, row, relation, before.get(old) ?? old),
      ),
      ...(change.added ? linkEvents(registry, CoreEvent.linked, row, relation, target) : []),
    ];
    const change = await this.store
      .link(id, relation, targetId, !rel.collection, events)
      .catch((error: unknown) => (isLinkTargetGone(error) ? undefined : Promise.reject(error)));
    if (!change)
      throw new ControllerError(409, `${targetId} or ${id} was removed or is being unprovisioned; no link was made.`);
    return linkAnswer(rel, targetId);
  }

  /** Removes a link of one of the instance's resources (the `DELETE` of {@link link}). */
  async unlink(
    caller: ApplicationCaller,
    service: string,
    id: string,
    relation: string,
    targetId: string,
  ): Promise<void> {
    const { row, type } = await this.own(caller, service, id);
    const rel = this.relationOf(type, relation);
    if (rel.required && !rel.collection)
      throw new ControllerError(
        409,
        `"${relation}" is a strong link: the resource cannot be without it. Relink it to another resource instead.`,
      );
    const target = isUuid(targetId) ? await this.store.get(targetId) : undefined;
    const removed = await this.store.unlink(
      id,
      relation,
      targetId,
      linkEvents(this.catalog.registry, CoreEvent.unlinked, row, relation, target ?? targetId),
    );
    if (!removed) throw new ControllerError(404, `${id} has no "${relation}" link to ${targetId}.`);
  }

  private relationOf(type: RegistryType, relation: string): RegistryRelation {
    const rel = type.relations[relation];
    if (!rel)
      throw new ControllerError(
        404,
        `${type.id} has no relation "${relation}"; it has ${Object.keys(type.relations).join(", ") || "none"}.`,
      );
    return rel;
  }

  private serviceTypes(caller: ApplicationCaller): RegistryType[] {
    const pkg = this.catalog.get(caller.instance.packageId);
    return (pkg?.typeIds ?? [])
      .map((id) => this.catalog.registry.get(id))
      .filter((t): t is RegistryType => !!t?.service && t.isResource);
  }

  private typeOf(caller: ApplicationCaller, service: string): RegistryType {
    const type = this.serviceTypes(caller).find((t) => t.service === service);
    if (!type)
      throw new ControllerError(
        404,
        `Your package has no service "${service}"; it has ${this.serviceTypes(caller)
          .map((t) => t.service)
          .join(", ")}.`,
      );
    return type;
  }

  /** A resource of this instance and of that service; another instance's is as good as missing. */
  private async own(
    caller: ApplicationCaller,
    service: string,
    id: string,
  ): Promise<{ row: StoredResource; type: RegistryType }> {
    const type = this.typeOf(caller, service);
    const row = isUuid(id) ? await this.store.get(id) : undefined;
    if (!row || row.typeId !== type.id || row.instanceId !== caller.instance.id)
      throw new ControllerError(404, `Resource ${id} is not one of this instance's ${service}.`);
    return { row, type };
  }

  /** With `APS-Resource-ID`, the owner of that resource (one of the instance's); else the provider. */
  private async ownerFor(caller: ApplicationCaller): Promise<{ id: string; path: string }> {
    if (!caller.actingAs) return this.provider;
    const row = isUuid(caller.actingAs) ? await this.store.get(caller.actingAs) : undefined;
    if (!row || row.instanceId !== caller.instance.id || !row.ownerAccount)
      throw new ControllerError(403, `APS-Resource-ID ${caller.actingAs} is not a resource of this instance.`);
    return { id: row.ownerAccount, path: row.ownerPath };
  }

  private view(row: StoredResource, type: RegistryType): ApsResource {
    return resourceView(row, type, { roles: ALL_ROLES, application: true }, { rows: this.rows, full: true });
  }
}
