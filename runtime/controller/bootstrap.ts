/**
 * First start: the provider account (root of the account tree) and its admin user, plus an
 * admin token in `<data>/admin.token`. Later starts find them in the database, also when
 * another controller instance created them.
 */
import { randomUUID } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { and, eq, sql } from "drizzle-orm";
import type { TokenService } from "./auth/tokens.ts";
import type { Db } from "./store/open-database.ts";
import { resources } from "./store/schema.ts";
import { ResourceRows } from "./store/resource-rows.ts";
import { CoreTypeIds, ResourceStatus } from "../common/core-types.ts";

const ACCOUNT_TYPE_ID = CoreTypeIds.account;
const USER_TYPE_ID = CoreTypeIds.user;

/** The provider's identity. */
export interface ProviderIdentity {
  readonly accountId: string;
  readonly adminUserId: string;
  readonly adminTokenPath: string;
  /** True when this start created them. */
  readonly created: boolean;
}

export async function ensureProvider(db: Db, tokens: TokenService, dataDir: string): Promise<ProviderIdentity> {
  const adminTokenPath = join(dataDir, "admin.token");
  const [root] = await db
    .select({ id: resources.id })
    .from(resources)
    .where(and(eq(resources.typeId, ACCOUNT_TYPE_ID), sql`${resources.ownerPath} = '/' || ${resources.id}::text || '/'`))
    .limit(1);
  let accountId = root?.id;
  let adminUserId: string | undefined;
  let created = false;
  if (!accountId) {
    accountId = randomUUID();
    adminUserId = randomUUID();
    const now = new Date().toISOString();
    const base = { status: ResourceStatus.ready, ownerAccount: accountId, ownerPath: `/${accountId}/` };
    // Built as every writer builds rows (store/resource-rows.ts); neither core type has encrypted properties, so no key is needed.
    const rows = new ResourceRows();
    await db.transaction(async (tx) => {
      await tx.insert(resources).values(rows.newRow({ ...base, id: accountId!, typeId: ACCOUNT_TYPE_ID }, {}, { companyName: "Provider", addressPostal: {} }, now));
      await tx.insert(resources).values(rows.newRow({ ...base, id: adminUserId!, typeId: USER_TYPE_ID }, {}, { login: "admin", displayName: "Provider administrator" }, now));
    });
    created = true;
  } else {
    const [admin] = await db
      .select({ id: resources.id })
      .from(resources)
      .where(and(eq(resources.typeId, USER_TYPE_ID), eq(resources.ownerAccount, accountId)))
      .orderBy(resources.seq)
      .limit(1);
    adminUserId = admin?.id;
  }
  if (created || !existsSync(adminTokenPath)) writeFileSync(adminTokenPath, `${await tokens.mint({ accountId, ...(adminUserId ? { userId: adminUserId } : {}) })}\n`, { mode: 0o600 });
  return { accountId, adminUserId: adminUserId ?? "", adminTokenPath, created };
}
