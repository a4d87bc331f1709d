/**
 * Notifications the manager recorded, in the database (store/schema.ts `platform_notifications`),
 * so that every controller process sharing it, and a restarted one, shows the same ones.
 */
import { randomUUID } from "node:crypto";
import { and, asc, count, eq, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../store/open-database.ts";
import { likePrefix } from "../store/like-pattern.ts";
import { platformNotifications } from "../store/schema.ts";
import type { NotificationInput } from "./notification-input.ts";

/** A recorded notification as the manager answers it: what was sent, with its id and time. */
export type RecordedNotification = NotificationInput & { readonly id: string; readonly time: string };

/** Which notifications a caller sees (routes/platform-notifications.ts decides). */
export type NotificationScope =
  /** The provider's administrators: every one. */
  | { readonly kind: "all" }
  /** An application instance: those it sent. */
  | { readonly kind: "sender"; readonly instanceId: string }
  /** An account's users: those addressed to it or an account below it, and those it sent. */
  | { readonly kind: "account"; readonly accountId: string; readonly accountPath: string };

export class NotificationLog {
  constructor(private readonly db: Db) {}

  async record(
    input: NotificationInput,
    recipient: { account: string; path: string } | undefined,
    sender: { instance?: string; account?: string },
  ): Promise<RecordedNotification> {
    const id = randomUUID();
    const time = new Date().toISOString();
    await this.db.insert(platformNotifications).values({
      id,
      time,
      body: { ...input },
      recipientAccount: recipient?.account ?? null,
      recipientPath: recipient?.path ?? null,
      senderInstance: sender.instance ?? null,
      senderAccount: sender.account ?? null,
    });
    return { id, time, ...input };
  }

  /** A page of what `scope` sees, oldest first, and how many it sees in all. */
  async list(
    scope: NotificationScope,
    start: number,
    size: number,
  ): Promise<{ items: RecordedNotification[]; total: number }> {
    const where = visible(scope);
    const rows = await this.db
      .select()
      .from(platformNotifications)
      .where(where)
      .orderBy(asc(platformNotifications.seq))
      .offset(start)
      .limit(size);
    const [counted] = await this.db.select({ n: count() }).from(platformNotifications).where(where);
    return { items: rows.map(view), total: Number(counted?.n ?? 0) };
  }

  /** One notification, when `scope` sees it. */
  async get(id: string, scope: NotificationScope): Promise<RecordedNotification | undefined> {
    const [row] = await this.db
      .select()
      .from(platformNotifications)
      .where(and(eq(platformNotifications.id, id), visible(scope)))
      .limit(1);
    return row ? view(row) : undefined;
  }
}

function visible(scope: NotificationScope): SQL | undefined {
  if (scope.kind === "all") return undefined;
  if (scope.kind === "sender") return eq(platformNotifications.senderInstance, scope.instanceId);
  const prefix = likePrefix(scope.accountPath);
  return or(
    sql`${platformNotifications.recipientPath} like ${prefix}`,
    eq(platformNotifications.senderAccount, scope.accountId),
  );
}

function view(row: typeof platformNotifications.$inferSelect): RecordedNotification {
  return { id: row.id, time: new Date(row.time).toISOString(), ...(row.body as unknown as NotificationInput) };
}
