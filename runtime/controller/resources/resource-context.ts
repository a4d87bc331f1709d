/**
 * What every resource feature works with (resources, relations, custom operations, suspension,
 * task attempts): the types, the store and its rows, the access checks, the applications.
 */
import type { ResourceAccess } from "../access/resource-access.ts";
import type { ResourceRows } from "../store/resource-rows.ts";
import type { ResourceStore } from "../store/resource-store.ts";
import type { Applications } from "./applications.ts";
import type { TypeCatalog } from "./type-catalog.ts";

export interface ResourceContext {
  readonly catalog: TypeCatalog;
  readonly store: ResourceStore;
  readonly rows: ResourceRows;
  readonly access: ResourceAccess;
  /** Asked for the index of a declared property a list compares (store/property-indexes.ts). */
  readonly indexes?: { want(typeId: string, property: string): void };
  /** Absent: application types answer 502 (applications.ts). */
  readonly applications?: Applications;
}
