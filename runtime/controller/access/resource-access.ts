/**
 * Who may do what to a resource (docs/aps/security.md, "Access checks"): a resource the caller may
 * not retrieve does not exist for it (404); one it sees but whose operation its roles do not allow
 * is a 403. Shared by every feature that acts on resources, and by relations for the targets of
 * links.
 */
import { RoleBit } from "../../common/actor.ts";
import type { Caller } from "../auth/caller.ts";
import { rolesOn } from "../auth/roles.ts";
import { operationAccess, type RegistryType } from "../registry.ts";
import type { TypeCatalog } from "../resources/type-catalog.ts";
import type { ResourceStore, StoredLink, StoredResource } from "../store/resource-store.ts";
import { ControllerError } from "../support/errors.ts";
import { isUuid } from "../support/uuid.ts";

/** A resource as the caller is allowed to see it. */
export interface VisibleResource {
  readonly row: StoredResource;
  readonly type: RegistryType;
  readonly roles: number;
  readonly links: StoredLink[];
}

export class ResourceAccess {
  constructor(
    private readonly catalog: TypeCatalog,
    private readonly store: ResourceStore,
  ) {}

  /** The resource, its type and the caller's roles; 404 when the caller may not see it, 403 when the operation is denied. */
  async visible(caller: Caller, id: string, operation: string): Promise<VisibleResource> {
    if (!isUuid(id)) throw new ControllerError(404, `Resource ${id} does not exist.`);
    const found = await this.store.getWithLinks(id);
    const row = found?.row;
    if (row && !this.catalog.registry.has(row.typeId)) await this.catalog.refresh();
    const type = row && this.catalog.registry.get(row.typeId);
    if (!row || !type) throw new ControllerError(404, `Resource ${id} does not exist.`);
    const retrieve = operationAccess(type, "retrieve");
    const roles = await rolesOn(row, caller, this.store, type);
    if ((roles & retrieve) === 0) throw new ControllerError(404, `Resource ${id} does not exist.`);
    requireOperation(type, operation, roles);
    return { row, type, roles, links: found.links };
  }

  /** The resource a link would point to, when it exists and the caller may retrieve it; undefined otherwise (each caller words its own 400). */
  async linkTarget(caller: Caller, targetId: string): Promise<{ row: StoredResource; type: RegistryType } | undefined> {
    const row = isUuid(targetId) ? await this.store.get(targetId) : undefined;
    const type = row && this.catalog.registry.get(row.typeId);
    if (!row || !type) return undefined;
    const roles = await rolesOn(row, caller, this.store, type);
    return (roles & operationAccess(type, "retrieve")) === 0 ? undefined : { row, type };
  }
}

/** 403 unless `roles` include one the operation's access allows. */
export function requireOperation(type: RegistryType, operation: string, roles: number): void {
  const access = operationAccess(type, operation);
  if ((access & roles) === 0)
    throw new ControllerError(
      403,
      `Your roles on this ${type.name} do not allow ${operation}; its access allows ${roleNames(access)}.`,
    );
}

function roleNames(bits: number): string {
  const names = (Object.keys(RoleBit) as (keyof typeof RoleBit)[]).filter((r) => (bits & RoleBit[r]) !== 0);
  return names.length ? names.join(", ") : "no role";
}
