/**
 * The base operations (docs/aps/lifecycle.md, "Base operations") on the controller side, one module
 * each: provision (provisioning.ts), retrieve, configure (configuring.ts), unprovision
 * (unprovisioning.ts) and list (listing.ts). HTTP lives in routes/resources.ts; links in
 * relations/, custom operations in operations/, enable and disable in suspension/.
 */
import type { ApsResource } from "../../common/types.ts";
import type { SQL } from "drizzle-orm";
import type { Caller } from "../auth/caller.ts";
import { configure } from "./configuring.ts";
import { list, type ResourcePage } from "./listing.ts";
import { provision } from "./provisioning.ts";
import type { ResourceContext } from "./resource-context.ts";
import { callerView } from "./resource-view.ts";
import { unprovision, type UnprovisionResult } from "./unprovisioning.ts";
import type { WriteResult } from "./write-result.ts";

/** Resource operations for token and application callers of `/aps/2/resources`. */
export class ResourceService {
  constructor(private readonly ctx: ResourceContext) {}

  provision(caller: Caller, body: unknown): Promise<WriteResult> {
    return provision(this.ctx, caller, body);
  }

  async retrieve(caller: Caller, id: string): Promise<ApsResource> {
    const { row, type, roles, links } = await this.ctx.access.visible(caller, id, "retrieve");
    return callerView(caller, row, type, roles, links, this.ctx.rows);
  }

  configure(caller: Caller, id: string, body: unknown): Promise<WriteResult> {
    return configure(this.ctx, caller, id, body);
  }

  unprovision(caller: Caller, id: string): Promise<UnprovisionResult> {
    return unprovision(this.ctx, caller, id);
  }

  list(caller: Caller, queryString: string, within?: SQL): Promise<ResourcePage> {
    return list(this.ctx, caller, queryString, within);
  }
}
