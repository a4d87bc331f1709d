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

/** Where a data folder keeps the provider administrator's token. */
export function adminTokenPath(dataDir: string): string {
  return join(dataDir, "admin.token");
}

export async function ensureProvider(db: Db, tokens: TokenService, dataDir: string): Promise<ProviderIdentity> {
  const tokenPath = adminTokenPath(dataDir);
  let found = await findProvider(db);
  let created = false;
  if (!found) {
    // Controllers starting at once on one new database: one creates the provider, the others
    // wait for its transaction and then find it (the lock is the transaction's, given back at its end).
    found = await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('aps-gen provider account', 0))`);
      const meanwhile = await findProvider(tx as unknown as Db);
      if (meanwhile) return meanwhile;
      const accountId = randomUUID();
      const adminUserId = randomUUID();
      const now = new Date().toISOString();
      const base = { status: ResourceStatus.ready, ownerAccount: accountId, ownerPath: `/${accountId}/` };
      // Built as every writer builds rows (store/resource-rows.ts); neither core type has encrypted properties, so no key is needed.
      const rows = new ResourceRows();
      await tx
        .insert(resources)
        .values(
          rows.newRow(
            { ...base, id: accountId, typeId: ACCOUNT_TYPE_ID },
            {},
            { companyName: "Provider", addressPostal: {} },
            now,
          ),
        );
      await tx
        .insert(resources)
        .values(
          rows.newRow(
            { ...base, id: adminUserId, typeId: USER_TYPE_ID },
            {},
            { login: "admin", displayName: "Provider administrator" },
            now,
          ),
        );
      created = true;
      return { accountId, adminUserId };
    });
  }
  if (created || !existsSync(tokenPath)) await writeAdminToken(tokenPath, tokens, found);
  return { accountId: found.accountId, adminUserId: found.adminUserId ?? "", adminTokenPath: tokenPath, created };
}

/** The provider account and its first user, when a controller has created them. */
export async function findProvider(db: Db): Promise<{ accountId: string; adminUserId?: string } | undefined> {
  const [root] = await db
    .select({ id: resources.id })
    .from(resources)
    .where(
      and(eq(resources.typeId, ACCOUNT_TYPE_ID), sql`${resources.ownerPath} = '/' || ${resources.id}::text || '/'`),
    )
    .limit(1);
  if (!root) return undefined;
  const [admin] = await db
    .select({ id: resources.id })
    .from(resources)
    .where(and(eq(resources.typeId, USER_TYPE_ID), eq(resources.ownerAccount, root.id)))
    .orderBy(resources.seq)
    .limit(1);
  return { accountId: root.id, ...(admin ? { adminUserId: admin.id } : {}) };
}

/** Writes a long-lived token of the provider's administrator (mode 0600). */
export async function writeAdminToken(
  path: string,
  tokens: TokenService,
  provider: { readonly accountId: string; readonly adminUserId?: string },
): Promise<void> {
  writeFileSync(
    path,
    `${await tokens.mint({ accountId: provider.accountId, ...(provider.adminUserId ? { userId: provider.adminUserId } : {}) })}\n`,
    { mode: 0o600 },
  );
}
