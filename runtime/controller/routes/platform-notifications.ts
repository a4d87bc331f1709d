/**
 * `/aps/2/resources/<notification manager>/notifications`: the platform's notification manager
 * (platform/notification-manager.ts), served by the controller itself, as FallBall calls it:
 * `POST aps/2/resources/<id>/notifications` answering 200 with JSON, the only status its
 * `send_request` takes (connector/v1/resources/__init__.py:135-136, 193-213).
 *
 * - POST records a notification (platform/notification-input.ts) and answers it with its id and
 *   time. An application may post for any account or user (the platform's manager is global); an
 *   account's users for their own account and the accounts below it.
 * - GET lists them, oldest first, with Content-Range and RQL `limit()`: the provider's
 *   administrators see every one, an account's users those addressed to their account or one
 *   below it (and those they sent), an application those it sent. GET `/notifications/<id>` reads one.
 *
 * Requests to any other resource's `notifications` pass on to the resource routes.
 */
import { Hono, type Context, type Next } from "hono";
import { parseRql, RqlError, type RqlQuery } from "../../common/rql.ts";
import type { Caller } from "../auth/caller.ts";
import type { ControllerEnv } from "../context.ts";
import { readNotification, type NotificationInput } from "../platform/notification-input.ts";
import type { NotificationLog, NotificationScope } from "../platform/notification-log.ts";
import type { NotificationManagerLocator } from "../platform/notification-manager.ts";
import type { ResourceStore } from "../store/resource-store.ts";
import { ControllerError } from "../support/errors.ts";
import { readJsonBody, sendJson, sendList } from "../support/http-json.ts";
import { withRangeHeader } from "../support/range-header.ts";
import { isUuid } from "../support/uuid.ts";

/** Most notifications in one page. */
const PAGE = 1000;

export interface NotificationRouteDeps {
  readonly manager: NotificationManagerLocator;
  readonly log: NotificationLog;
  readonly store: ResourceStore;
}

export function platformNotificationRoutes({ manager, log, store }: NotificationRouteDeps): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  /** Runs `handle` when `:id` is the manager; otherwise the resource routes answer. */
  const onManager =
    (handle: (c: Context<ControllerEnv>) => Promise<Response>) => async (c: Context<ControllerEnv>, next: Next) => {
      if (c.req.param("id") !== (await manager.find())) return next();
      return handle(c);
    };
  app.post(
    "/:id/notifications",
    onManager(async (c) => {
      const caller = c.get("caller");
      const input = readNotification(await readJsonBody(c));
      const recipient = await recipientOf(input, store);
      const sender = senderOf(caller, recipient);
      return sendJson(c, await log.record(input, recipient, sender));
    }),
  );
  app.get(
    "/:id/notifications",
    onManager(async (c) => {
      const url = c.req.url;
      const q = url.indexOf("?");
      const { start, size } = pageOf(
        withRangeHeader(q < 0 ? "" : url.slice(q + 1), c.req.header("range") ?? c.req.header("x-range")),
      );
      const page = await log.list(scopeOf(c.get("caller")), start, size);
      return sendList(c, page.items, start, page.total);
    }),
  );
  app.get(
    "/:id/notifications/:notification",
    onManager(async (c) => {
      const id = c.req.param("notification") ?? "";
      const found = isUuid(id) ? await log.get(id, scopeOf(c.get("caller"))) : undefined;
      if (!found) throw new ControllerError(404, `There is no notification ${id} that you may see.`);
      return sendJson(c, found);
    }),
  );
  app.all(
    "/:id/notifications/*",
    onManager(async (c) => notOffered(c)),
  );
  app.all(
    "/:id/notifications",
    onManager(async (c) => notOffered(c)),
  );
  return app;
}

function notOffered(c: Context<ControllerEnv>): never {
  throw new ControllerError(
    405,
    `${c.req.method} ${new URL(c.req.url).pathname} is not offered: the notification manager here answers POST and GET .../notifications and GET .../notifications/<id> (editing and deleting notifications is not offered).`,
  );
}

/** The account a notification addresses: `accountId`, else the account of `userId`; 400 when either names nothing here. */
async function recipientOf(
  input: NotificationInput,
  store: ResourceStore,
): Promise<{ account: string; path: string } | undefined> {
  const byId = async (id: string | undefined) => (id !== undefined && isUuid(id) ? store.get(id) : undefined);
  const account = await byId(input.accountId);
  if (input.accountId !== undefined && (!account || account.ownerAccount !== account.id))
    throw new ControllerError(400, `The notification's accountId ${input.accountId} is not an account here.`);
  const user = await byId(input.userId);
  if (input.userId !== undefined && (!user?.ownerAccount || user.ownerAccount === user.id))
    throw new ControllerError(400, `The notification's userId ${input.userId} is not a user here.`);
  if (account && user && user.ownerAccount !== account.id)
    throw new ControllerError(
      400,
      `The notification's userId ${input.userId} is not a user of account ${input.accountId}.`,
    );
  if (account) return { account: account.id, path: account.ownerPath };
  if (user) return { account: user.ownerAccount!, path: user.ownerPath };
  return undefined;
}

/**
 * Who posts: an application (also one acting for a customer) for anyone; an account's user for its
 * own account or one below it; a notification addressed to no one, only the provider or an application.
 */
function senderOf(
  caller: Caller,
  recipient: { account: string; path: string } | undefined,
): { instance?: string; account?: string } {
  if (caller.instanceId)
    return { instance: caller.instanceId, ...(caller.accountId ? { account: caller.accountId } : {}) };
  if (!caller.accountId || !caller.accountPath)
    throw new ControllerError(
      403,
      "Posting a notification needs an account's APS-Token or an application's credentials.",
    );
  const provider = caller.accountPath === `/${caller.accountId}/`;
  if (!provider && !recipient?.path.startsWith(caller.accountPath))
    throw new ControllerError(
      403,
      `Account ${caller.accountId} may post notifications only to itself and the accounts below it; name one with accountId or userId.`,
    );
  return { account: caller.accountId };
}

/** What the caller may see (platform/notification-log.ts). */
function scopeOf(caller: Caller): NotificationScope {
  if (caller.kind === "application" && caller.instanceId) return { kind: "sender", instanceId: caller.instanceId };
  if (!caller.accountId || !caller.accountPath)
    throw new ControllerError(
      403,
      "Reading notifications needs an account's APS-Token or an application's credentials.",
    );
  if (caller.accountPath === `/${caller.accountId}/`) return { kind: "all" };
  return { kind: "account", accountId: caller.accountId, accountPath: caller.accountPath };
}

/** The page `limit(start,count)` asks for; other RQL is a 400 (the list has nothing to filter or sort on). */
function pageOf(query: string): { start: number; size: number } {
  let parsed: RqlQuery;
  try {
    parsed = parseRql(query);
  } catch (error) {
    if (error instanceof RqlError) throw new ControllerError(400, `The query is not valid RQL: ${error.message}.`);
    throw error;
  }
  if (parsed.filter || parsed.sort.length || parsed.select)
    throw new ControllerError(
      400,
      "Notifications take only limit(<start>,<count>) (or a Range header); they are listed oldest first, unfiltered.",
    );
  return { start: parsed.limit?.start ?? 0, size: Math.min(parsed.limit?.count ?? PAGE, PAGE) };
}
