/**
 * The resource features as the reads of `/aps/2/resources` run them: on the database
 * store/replica-reads.ts chooses for each read (a replica that has replayed the caller's writes,
 * or the primary), with the same services built over that database's pool, once per database.
 * Only the routes that read and write nothing (GET of a resource, its links and relations, lists)
 * go through here; the services every other route holds stay on the primary, and so do the reads
 * a write makes.
 */
import { ResourceAccess } from "../access/resource-access.ts";
import { RelationService } from "../relations/relation-service.ts";
import type { Db } from "../store/open-database.ts";
import type { ReplicaReads } from "../store/replica-reads.ts";
import { ResourceStore } from "../store/resource-store.ts";
import type { ResourceContext } from "./resource-context.ts";
import { ResourceService } from "./resource-service.ts";

/** What a read runs with. */
export interface ReadView {
  readonly resources: ResourceService;
  readonly relations: RelationService;
}

export class ReadViews {
  private readonly views = new Map<Db, ReadView>();

  /** `primary`: the services on the primary (`db`), which reads use when there are no replicas. */
  constructor(
    private readonly context: ResourceContext,
    private readonly primary: { readonly db: Db; readonly view: ReadView },
    private readonly reads: ReplicaReads | undefined,
  ) {
    this.views.set(primary.db, primary.view);
  }

  /** Runs the read `work` on the database chosen for it; it may run twice (again on the primary when a replica fails under it). */
  run<T>(work: (view: ReadView) => Promise<T>): Promise<T> {
    if (!this.reads) return work(this.primary.view);
    return this.reads.read((db) => work(this.viewOf(db)));
  }

  private viewOf(db: Db): ReadView {
    let view = this.views.get(db);
    if (!view) {
      const store = new ResourceStore(db);
      const context: ResourceContext = {
        ...this.context,
        store,
        access: new ResourceAccess(this.context.catalog, store),
      };
      const resources = new ResourceService(context);
      view = { resources, relations: new RelationService(context, resources) };
      this.views.set(db, view);
    }
    return view;
  }
}
