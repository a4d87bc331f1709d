/**
 * Lists (`GET /aps/2/resources`, docs/aps/rql.md): what an RQL query matches among the
 * resources the caller may see, filtered and sorted only by properties it may read, one page at
 * a time.
 */
import type { ApsResource } from "../../common/types.ts";
import { sql, type SQL } from "drizzle-orm";
import { parseRql, RqlError, type RqlQuery } from "../../common/rql.ts";
import type { Caller } from "../auth/caller.ts";
import { rolesOn } from "../auth/roles.ts";
import { readableProperty, visibleRows } from "../store/role-sql.ts";
import { filterScope, filterSql, indexedProperties, sortSql } from "../store/rql-sql.ts";
import { ControllerError } from "../support/errors.ts";
import type { ResourceContext } from "./resource-context.ts";
import { readerOf, resourceView } from "./resource-view.ts";

/** Default and largest page of a list (the documented default is 1000: docs/aps/rest-api.md, "Lists and Content-Range"). */
const DEFAULT_PAGE = 1000;

/** A page of a list, with what Content-Range needs. */
export interface ResourcePage {
  readonly items: ApsResource[];
  readonly start: number;
  readonly total: number;
}

/** A page of what `queryString` (RQL) matches among what the caller may see; `within` limits it further (a relation's members). */
export async function list(
  ctx: ResourceContext,
  caller: Caller,
  queryString: string,
  within?: SQL,
): Promise<ResourcePage> {
  const { registry } = ctx.catalog;
  let query: RqlQuery;
  try {
    query = parseRql(queryString);
  } catch (error) {
    if (error instanceof RqlError) throw new ControllerError(400, `The query is not valid RQL: ${error.message}.`);
    throw error;
  }
  // Access is tested for the types the filter keeps to, once, not for every type of the registry.
  const scope = filterScope(query.filter, registry);
  const where: SQL[] = [visibleRows(registry, caller, scope)];
  if (within) where.push(within);
  const readable = (prop: string) => readableProperty(registry, prop.split(".")[0]!, caller, scope);
  if (query.filter) where.push(filterSql(query.filter, registry, readable, scope));
  if (scope?.length === 1 && ctx.indexes)
    for (const prop of indexedProperties(query.filter, registry.get(scope[0]!))) ctx.indexes.want(scope[0]!, prop);
  const order = query.sort.map((s) => sortSql(s.prop, s.descending, readable));
  const start = query.limit?.start ?? 0;
  const count = Math.min(query.limit?.count ?? DEFAULT_PAGE, DEFAULT_PAGE);
  const page = await ctx.store.list(sql.join(where, sql` and `), order, start, count);
  const select = query.select ? new Set(query.select) : undefined;
  const items: ApsResource[] = [];
  for (const row of page.rows) {
    const type = registry.get(row.typeId);
    const roles = await rolesOn(row, caller, ctx.store, type);
    // Lists show links only when select names them (docs/aps/rql.md).
    const links =
      select && type && Object.keys(type.relations).some((r) => select.has(r))
        ? await ctx.store.linksFrom(row.id)
        : undefined;
    items.push(
      resourceView(row, type, readerOf(caller, roles), {
        rows: ctx.rows,
        ...(links ? { links } : {}),
        ...(select ? { select } : {}),
        full: false,
      }),
    );
  }
  return { items, start, total: page.total };
}
