/**
 * What an account still holds (issue 15): the resources it or an account below it owns, and the
 * resources its collection relations link to (its users, its subscriptions). An account that
 * holds anything is not deleted (409), so no resource is ever left without its owner.
 */
import { and, asc, eq, inArray, ne, or, sql } from "drizzle-orm";
import type { Db } from "./open-database.ts";
import { likePrefix } from "./like-pattern.ts";
import { links, resources } from "./schema.ts";

/** How many resources an account holds, with the first few ids (for the 409's message). */
export interface AccountHoldings {
  readonly total: number;
  readonly first: readonly string[];
}

/**
 * The holdings of the account `id` whose path is `path`. `collections` names the account type's
 * collection relations; `sample` ids are returned.
 */
export async function accountHoldings(
  db: Db,
  id: string,
  path: string,
  collections: readonly string[],
  sample = 3,
): Promise<AccountHoldings> {
  const below = sql`${resources.ownerPath} like ${likePrefix(path)}`;
  const linked = collections.length
    ? inArray(
        resources.id,
        db
          .select({ id: links.targetId })
          .from(links)
          .where(and(eq(links.sourceId, id), inArray(links.relation, [...collections]))),
      )
    : sql`false`;
  const rows = await db
    .select({ id: resources.id, total: sql<string>`count(*) over ()` })
    .from(resources)
    .where(and(ne(resources.id, id), or(below, linked)))
    .orderBy(asc(resources.seq))
    .limit(sample);
  return { total: Number(rows[0]?.total ?? 0), first: rows.map((r) => r.id) };
}

/** Locks the account's row until the transaction ends; false when it is gone. */
export async function lockAccount(tx: Db, id: string): Promise<boolean> {
  const rows = await tx.select({ id: resources.id }).from(resources).where(eq(resources.id, id)).for("update");
  return rows.length > 0;
}
