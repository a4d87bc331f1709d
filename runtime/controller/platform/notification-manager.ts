/**
 * The platform's notification manager as a resource: one per controller, owned by the provider,
 * created at start when the registry has its type (types/core/notification-manager.schema; not with
 * `--no-core`). Connectors find it by type, as FallBall does
 * (`GET aps/2/resources?implementing(.../notification-manager/1)`, connector/v1/resources/__init__.py:102-106),
 * and post to its `notifications` (routes/platform-notifications.ts).
 *
 * Its id is derived from the provider account's (a name-based UUID), so controllers starting
 * together on one database make the same row and the second insert is a no-op.
 */
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import type { TypeRegistry } from "../registry.ts";
import type { Db } from "../store/open-database.ts";
import { ResourceRows } from "../store/resource-rows.ts";
import { resources } from "../store/schema.ts";
import { ResourceStatus } from "../../common/core-types.ts";

/** Type id of the manager, as the platform spells it. */
export const NOTIFICATION_MANAGER_TYPE = "http://www.parallels.com/pa/pa-core-services/notification-manager/1.0";
/** Its alias under `/aps/2/services/` (routes/platform-services.ts). */
export const NOTIFICATION_MANAGER_ALIAS = "notification-manager";

/** Creates the manager unless it exists or its type is not loaded; returns its id, or undefined without the type. */
export async function ensureNotificationManager(
  db: Db,
  registry: TypeRegistry,
  providerAccountId: string,
): Promise<string | undefined> {
  if (!registry.has(NOTIFICATION_MANAGER_TYPE)) return undefined;
  const id = nameBasedUuid(providerAccountId, NOTIFICATION_MANAGER_TYPE);
  const row = new ResourceRows().newRow(
    {
      id,
      typeId: NOTIFICATION_MANAGER_TYPE,
      status: ResourceStatus.ready,
      ownerAccount: providerAccountId,
      ownerPath: `/${providerAccountId}/`,
    },
    {},
    {},
  );
  await db.insert(resources).values(row).onConflictDoNothing({ target: resources.id });
  return id;
}

/** Finds the manager's id in the database (another process may have created it), once found kept. */
export class NotificationManagerLocator {
  private id: string | undefined;

  constructor(private readonly db: Db) {}

  async find(): Promise<string | undefined> {
    if (this.id) return this.id;
    const [row] = await this.db
      .select({ id: resources.id })
      .from(resources)
      .where(eq(resources.typeId, NOTIFICATION_MANAGER_TYPE))
      .limit(1);
    this.id = row?.id;
    return this.id;
  }
}

/** A version-5 (SHA-1, name-based) UUID of `name` in the namespace `namespace` (RFC 9562 5.5). */
function nameBasedUuid(namespace: string, name: string): string {
  const hash = createHash("sha1")
    .update(Buffer.from(namespace.replace(/-/g, ""), "hex"))
    .update(name)
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
