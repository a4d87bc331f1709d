/**
 * Links of relations (docs/aps/relations.md): `POST /aps/2/resources/{id}/{relation}` links (or,
 * for a singular relation, relinks) `{"aps": {"id"}}`, `DELETE .../{relation}/{id2}` unlinks,
 * `GET .../{relation}` lists the linked resources, `GET .../aps/links` every link. Changing links needs
 * configure access on the resource; the application serving it is told first.
 */
import type { ApsResource } from "../../common/types.ts";
import type { Caller } from "../auth/caller.ts";
import { ControllerError } from "../support/errors.ts";
import { CoreEvent } from "../events/core-events.ts";
import { linkEvents, otherEndRelation } from "../events/link-events.ts";
import type { LinkInfo } from "../../common/link-info.ts";
import { linkRef, linkRefId } from "../../common/link-ref.ts";
import { implementsType, type TypeRegistry } from "../registry.ts";
import { applicationsFor, forwardOrigin } from "../resources/applications.ts";
import type { ResourcePage } from "../resources/listing.ts";
import type { ResourceContext } from "../resources/resource-context.ts";
import type { ResourceService } from "../resources/resource-service.ts";
import { linkAnswer, linkKind, resourceHref, type LinkAnswer } from "../resources/resource-view.ts";
import type { WriteResult } from "../resources/write-result.ts";
import { splitAsReadBody } from "./as-read-body.ts";
import { backwardCollection, relationMembers } from "./backward-relations.ts";
import type { LinkChange, StoredResource } from "../store/resource-store.ts";
import { isLinkTargetGone } from "../store/link-target-error.ts";
import { visibleRows } from "../store/role-sql.ts";
import { isUuid } from "../support/uuid.ts";

export class RelationService {
  constructor(
    private readonly ctx: ResourceContext,
    private readonly resources: ResourceService,
  ) {}

  /** Read anew on each use: imported packages replace the registry. */
  private registry(): TypeRegistry {
    return this.ctx.catalog.registry;
  }

  /** Whether some type has a relation named `name` (no read: the registry's names, computed once per registry). */
  isRelationName(name: string): boolean {
    return relationNames(this.registry()).has(name);
  }

  /** Whether resource `id` is of a type that declares the relation `relation` (routes/resource-sub-path.ts asks, to tell a relation's path from a custom operation's). */
  async declares(id: string, relation: string): Promise<boolean> {
    const row = isUuid(id) ? await this.ctx.store.get(id) : undefined;
    return row !== undefined && this.registry().get(row.typeId)?.relations[relation] !== undefined;
  }

  /**
   * `PUT /aps/2/resources/{id}` (and `PUT /aps/2/resources` by `aps.id`) with a body that may be
   * the resource as it was read (as-read-body.ts): the properties are configured, then the
   * singular links the body changes are relinked or unlinked as `POST`/`DELETE .../{relation}`
   * would. Link targets are checked before anything is written.
   */
  async configure(caller: Caller, id: string, body: unknown): Promise<WriteResult> {
    const { row, type, links } = await this.ctx.access.visible(caller, id, "configure");
    const { properties, relinks } = splitAsReadBody(type, row, links, body);
    for (const r of relinks)
      if (r.targetId !== null)
        await this.requireTarget(caller, r.relation, type.relations[r.relation]!.typeId, r.targetId);
    const result = await this.resources.configure(caller, id, properties);
    if (!relinks.length) return result;
    for (const r of relinks) {
      if (r.targetId !== null) await this.link(caller, id, r.relation, linkRef(r.targetId));
      else {
        const current = links.find((l) => l.relation === r.relation);
        if (current) await this.unlink(caller, id, r.relation, current.targetId);
      }
    }
    return result.accepted ? result : { resource: await this.resources.retrieve(caller, id) };
  }

  /** 400 unless `targetId` is a resource the caller sees, of the relation's type. */
  private async requireTarget(
    caller: Caller,
    relation: string,
    typeId: string,
    targetId: string,
  ): Promise<StoredResource> {
    const target = (await this.ctx.access.linkTarget(caller, targetId))?.row;
    if (!target) throw new ControllerError(400, `${targetId} does not exist or is not visible to you.`);
    if (!implementsType(this.registry(), target.typeId, typeId))
      throw new ControllerError(400, `"${relation}" links to ${typeId}; ${targetId} is a ${target.typeId}.`);
    return target;
  }

  /** `POST .../{relation}` with a link reference: links (or, for a singular relation, relinks) the resource it names. */
  async link(caller: Caller, id: string, relation: string, body: unknown): Promise<LinkAnswer> {
    const { row, type, links } = await this.ctx.access.visible(caller, id, "configure");
    const rel = type.relations[relation]!;
    const targetId = linkRefId(body);
    if (targetId === undefined)
      throw new ControllerError(400, `Link with {"aps": {"id": "<resource id>"}} in the body.`);
    const target = await this.requireTarget(caller, relation, rel.typeId, targetId);
    // Already a member: it links here through the relation whose other end this collection is.
    // One link, whichever end made it: nothing new is stored, told or raised.
    if (
      rel.collection &&
      backwardCollection(this.registry(), type, target.typeId) === relation &&
      (await this.ctx.store.linksFrom(targetId)).some((l) => l.targetId === id)
    )
      return linkAnswer(rel, targetId);
    // What a singular relation links to now: a relink tells its other end too.
    const before = rel.collection
      ? new Map<string, StoredResource>()
      : await this.ctx.store.rowsById(links.filter((l) => l.relation === relation).map((l) => l.targetId));
    let toldApplication: (() => Promise<void>) | undefined;
    if (type.servedBy === "application") {
      const app = applicationsFor(this.ctx.applications, type);
      const { target: endpoint } = await app.targetFor(type);
      await app.forwarder.linkChanged(endpoint, type, id, relation, targetId, true, forwardOrigin(caller));
      toldApplication = () =>
        app.forwarder.linkChanged(endpoint, type, id, relation, targetId, false, forwardOrigin(caller));
    }
    // A singular relation relinks: the link it had goes, and says so (what it had is read under
    // the store's lock, so concurrent relinks each report what they replaced).
    const events = (change: LinkChange) => [
      ...change.replaced.flatMap((old) =>
        linkEvents(this.registry(), CoreEvent.unlinked, row, relation, before.get(old) ?? old),
      ),
      ...(change.added ? linkEvents(this.registry(), CoreEvent.linked, row, relation, target) : []),
    ];
    let change: LinkChange | undefined;
    try {
      change = await this.ctx.store.link(id, relation, targetId, !rel.collection, events);
    } catch (error) {
      if (!isLinkTargetGone(error)) throw error;
    }
    if (!change) {
      // Not stored: the application, told first, is told the link is gone again.
      await toldApplication?.().catch(() => undefined);
      throw change === undefined && (await this.ctx.store.get(id)) === undefined
        ? new ControllerError(404, `Resource ${id} does not exist.`)
        : new ControllerError(409, `${targetId} was removed or is being unprovisioned; it accepts no new links.`);
    }
    return linkAnswer(rel, targetId);
  }

  /**
   * Provisions a new resource already linked (docs/aps/relations.md: the platform lists
   * provisioning a resource through a required link): the body is the new resource; its relation
   * back to this resource is set, and this resource's relation gets the link to it.
   */
  async provisionThrough(
    caller: Caller,
    id: string,
    relation: string,
    body: Record<string, unknown>,
  ): Promise<ApsResource> {
    const { row, type } = await this.ctx.access.visible(caller, id, "configure");
    const rel = type.relations[relation]!;
    const newTypeId = (body.aps as { type: string }).type;
    if (!implementsType(this.registry(), newTypeId, rel.typeId))
      throw new ControllerError(
        400,
        `"${relation}" links to ${rel.typeId}; a ${newTypeId} cannot be provisioned through it.`,
      );
    const newType = this.registry().get(newTypeId)!;
    const back = Object.entries(newType.relations).find(
      ([, r]) => !r.collection && implementsType(this.registry(), row.typeId, r.typeId),
    )?.[0];
    const input = back && body[back] === undefined ? { ...body, [back]: linkRef(id) } : body;
    const { resource } = await this.resources.provision(caller, input);
    const newId = resource.aps.id;
    // The new resource's link back here raised `linked` on both ends already (one link, one set
    // of events); only what a singular relation replaces is told here.
    const linkedBack =
      back !== undefined &&
      linkRefId(input[back]) === id &&
      otherEndRelation(this.registry(), row.typeId, newTypeId) === relation;
    const newRow = linkedBack ? undefined : await this.ctx.store.get(newId);
    const linked = await this.ctx.store
      .link(id, relation, newId, !rel.collection, (change) => [
        ...change.replaced.flatMap((old) => linkEvents(this.registry(), CoreEvent.unlinked, row, relation, old)),
        ...(change.added && !linkedBack
          ? linkEvents(this.registry(), CoreEvent.linked, row, relation, newRow ?? newId)
          : []),
      ])
      .catch((error: unknown) => (isLinkTargetGone(error) ? undefined : Promise.reject(error)));
    // The new resource exists and links back; only this side's link could not be made.
    if (!linked)
      throw new ControllerError(
        409,
        `${newId} was provisioned, but ${id} was removed or is being unprovisioned meanwhile, so it was not linked to it.`,
      );
    return resource;
  }

  /**
   * `DELETE .../{relation}/{other}`. Both ends are one relation: the link may be stored from this
   * resource (`id` -relation-> `other`) or from the other one, under the relation whose other end
   * is this one (`other` -back-> `id`, made by `POST .../other/back` or on provisioning). Either
   * goes, or nothing does: a required singular relation cannot lose its link and a required
   * collection cannot lose its last member, from either end (409 naming the relation).
   */
  async unlink(caller: Caller, id: string, relation: string, other: string): Promise<void> {
    const { row, type, links } = await this.ctx.access.visible(caller, id, "configure");
    const forward = links.some((l) => l.relation === relation && l.targetId === other);
    // Read from the other resource's side: its links are few, where this resource (an application root, say) may have many linking to it.
    const otherRow = isUuid(other) ? await this.ctx.store.get(other) : undefined;
    const reverse =
      otherRow && otherEndRelation(this.registry(), type.id, otherRow.typeId) === relation
        ? (await this.ctx.store.linksFrom(other)).filter((l) => l.targetId === id)
        : [];
    if (!forward && !reverse.length) throw new ControllerError(404, `${id} has no "${relation}" link to ${other}.`);
    // Every refusal before any change, for what each end requires: an unlink is whole or nothing.
    await this.refuseRequiredLoss(row, relation, other);
    // The other end: the relations its stored links here are under, and the one declared as this relation's other end.
    const back = otherRow && otherEndRelation(this.registry(), otherRow.typeId, type.id);
    for (const r of new Set([...reverse.map((l) => l.relation), ...(back ? [back] : [])]))
      await this.refuseRequiredLoss(otherRow!, r, id);
    for (const l of reverse) await this.unlinkFrom(caller, other, l.relation, row);
    if (!forward) return;
    if (type.servedBy === "application") {
      const app = applicationsFor(this.ctx.applications, type);
      const { target: endpoint } = await app.targetFor(type);
      await app.forwarder.linkChanged(endpoint, type, id, relation, other, false, forwardOrigin(caller));
    }
    // When the other end's own link here went just above, both ends heard of it then.
    await this.ctx.store.unlink(
      id,
      relation,
      other,
      reverse.length ? [] : linkEvents(this.registry(), CoreEvent.unlinked, row, relation, otherRow ?? other),
    );
  }

  /** 409 when `holder` cannot be without its `relation` link to `leaving`: required singular, or the last member of a required collection. */
  private async refuseRequiredLoss(holder: StoredResource, relation: string, leaving: string): Promise<void> {
    const rel = this.registry().get(holder.typeId)?.relations[relation];
    if (!rel?.required) return;
    if (!rel.collection) {
      // Its one link may be to another resource (it is in this collection through a link made from here).
      if (!(await this.ctx.store.linksFrom(holder.id)).some((l) => l.relation === relation && l.targetId === leaving))
        return;
      throw new ControllerError(
        409,
        `${holder.id} links to ${leaving} through its required relation "${relation}", a strong link: it cannot be without it. Relink it to another resource, or unprovision it.`,
      );
    }
    if (!(await this.othersRemain(holder, relation, leaving)))
      throw new ControllerError(
        409,
        `${leaving} is the last member of ${holder.id}'s required collection "${relation}": it cannot be empty. Link another resource first, or unprovision ${holder.id}.`,
      );
  }

  /** Whether `holder`'s collection `relation` keeps a member once `leaving` is gone (its own links and those that belong in it from the other end). */
  private async othersRemain(holder: StoredResource, relation: string, leaving: string): Promise<boolean> {
    if ((await this.ctx.store.linksFrom(holder.id)).some((l) => l.relation === relation && l.targetId !== leaving))
      return true;
    const type = this.registry().get(holder.typeId)!;
    return (await this.ctx.store.linksTo(holder.id)).some(
      (l) => l.sourceId !== leaving && backwardCollection(this.registry(), type, l.sourceType) === relation,
    );
  }

  /** The link `sourceId` holds under `relation` to `targetId` goes, as told to the application serving the source (the other end of an unlink). */
  private async unlinkFrom(caller: Caller, sourceId: string, relation: string, target: StoredResource): Promise<void> {
    const targetId = target.id;
    const source = await this.ctx.store.get(sourceId);
    const sourceType = source && this.registry().get(source.typeId);
    if (!source || !sourceType) return;
    if (sourceType.servedBy === "application") {
      const app = applicationsFor(this.ctx.applications, sourceType);
      const { target: endpoint } = await app.targetFor(sourceType);
      await app.forwarder.linkChanged(endpoint, sourceType, sourceId, relation, targetId, false, forwardOrigin(caller));
    }
    await this.ctx.store.unlink(
      sourceId,
      relation,
      targetId,
      linkEvents(this.registry(), CoreEvent.unlinked, source, relation, target),
    );
  }

  /**
   * The resources a relation links to, and for a collection those linking here that belong in it
   * (backward-relations.ts), that the caller may see: always an array (docs/aps/relations.md),
   * filtered, sorted and paged by an RQL `query` as `/aps/2/resources` is.
   */
  async related(caller: Caller, id: string, relation: string, query: string): Promise<ResourcePage> {
    const { type } = await this.ctx.access.visible(caller, id, "retrieve");
    // In SQL, not as a list of ids: a collection may hold more members than a statement takes parameters.
    return this.resources.list(caller, query, relationMembers(this.registry(), type, id, relation));
  }

  /**
   * Every link from the resource, and every link to it from another resource (an anonymous
   * backward relation), whose other end the caller may see: a resource many customers link to
   * (an application root) does not tell one customer the ids of another's resources.
   */
  async allLinks(
    caller: Caller,
    id: string,
  ): Promise<{ readonly items: LinkInfo[]; readonly start: number; readonly total: number }> {
    const { type, links } = await this.ctx.access.visible(caller, id, "retrieve");
    const incoming = await this.ctx.store.linksTo(id);
    const visible = await this.ctx.store.idsMatching(
      [...links.map((l) => l.targetId), ...incoming.map((l) => l.sourceId)],
      visibleRows(this.registry(), caller),
    );
    const out: LinkInfo[] = links
      .filter((l) => visible.has(l.targetId))
      .map((l) => {
        const rel = type.relations[l.relation];
        return {
          relation: l.relation,
          kind: rel ? linkKind(rel) : "weak",
          direction: "out",
          id: l.targetId,
          href: resourceHref(l.targetId),
        };
      });
    for (const l of incoming) {
      if (!visible.has(l.sourceId)) continue;
      out.push({
        relation: l.relation,
        kind: this.registry().get(l.sourceType)?.relations[l.relation]?.required ? "strong" : "weak",
        direction: "in",
        id: l.sourceId,
        href: resourceHref(l.sourceId),
      });
    }
    return { items: out, start: 0, total: out.length };
  }
}

const relationNameCache = new WeakMap<TypeRegistry, ReadonlySet<string>>();

/** Every relation name of the registry, computed once per registry. */
function relationNames(registry: TypeRegistry): ReadonlySet<string> {
  let names = relationNameCache.get(registry);
  if (!names)
    relationNameCache.set(registry, (names = new Set([...registry.values()].flatMap((t) => Object.keys(t.relations)))));
  return names;
}

/** Whether a `POST .../{relation}` body is a new resource to provision through the relation (it has `aps.type`, no `aps.id`), not a link to an existing one. */
export function provisionsThrough(body: unknown): body is Record<string, unknown> & { aps: { type: string } } {
  const aps = (body as { aps?: { id?: unknown; type?: unknown } } | undefined)?.aps;
  return !!aps && aps.id === undefined && typeof aps.type === "string";
}
