/**
 * The feed of account revocations every controller process follows (issue 15): a delete of an
 * account, or a change of its status (`aps:disabled` and back), is written to
 * `account_revocations` with a serial in commit order, in the transaction of the change (triggers
 * of migration 0006). Each process asks the database "anything past serial N?" every second or so
 * (one single-row read when nothing happened) and tells its caches to forget those accounts, so
 * the hot path of a request stays a memory lookup while a deleted or disabled account's tokens
 * are refused everywhere within about one poll interval.
 */
import { gt, sql } from "drizzle-orm";
import type { Logger } from "pino";
import { DatabaseOutageLog } from "../observability/database-outage-log.ts";
import type { Db } from "../store/open-database.ts";
import { accountRevocations, revocationClock } from "../store/schema.ts";
import { loggableError } from "../support/loggable-error.ts";

/** What the feed tells: these accounts changed (or, after a gap it cannot fill, possibly any). */
export interface RevocationListener {
  revoke(accountIds: readonly string[]): void;
  revokeAll(): void;
}

/** How often the feed looks, and how long revocations are kept for processes that fell behind. */
export interface RevocationFeedOptions {
  /** Default 1000 ms: a revoked account's tokens are refused within about this long. */
  readonly pollMs: number;
  /** Default one hour. A process that has not looked for longer forgets every account it cached. */
  readonly retentionMs: number;
}

/** Defaults of {@link RevocationFeedOptions}. */
export const DEFAULT_REVOCATION_FEED: RevocationFeedOptions = { pollMs: 1000, retentionMs: 3_600_000 };

/** Rows read per query while catching up. */
const BATCH = 1000;
/** Pruning runs at most this often per process. */
const PRUNE_EVERY_MS = 60_000;

/** Follows `account_revocations` and tells a {@link RevocationListener}. */
export class AccountRevocationFeed {
  /** The serial seen last; undefined until the first poll has read where the feed stands. */
  private seen: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private lastPrune = 0;
  private readonly outage: DatabaseOutageLog | undefined;

  constructor(
    private readonly db: Db,
    private readonly listener: RevocationListener,
    private readonly options: RevocationFeedOptions = DEFAULT_REVOCATION_FEED,
    private readonly logger?: Logger,
  ) {
    this.outage = logger && new DatabaseOutageLog(logger, "account revocation feed");
  }

  /**
   * True once the feed knows where it stands. Until then nothing learnt from the database may be
   * cached: a revocation committed before the first poll would not be seen as news.
   */
  get ready(): boolean {
    return this.seen !== undefined;
  }

  /** Polls now and then every `pollMs`; the timer does not keep the process alive. */
  start(): void {
    if (this.timer) return;
    void this.poll();
    this.timer = setInterval(() => void this.poll(), this.options.pollMs);
    this.timer.unref();
  }

  /** Stops polling and waits for a poll under way (call before closing the database). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One look at the feed (a poll already running is joined, not repeated). */
  poll(): Promise<void> {
    // While the database is gone nothing can be revoked, and the next poll after it is back
    // reads every revocation since the last one seen: nothing is missed.
    this.running ??= this.catchUp()
      .then(() => this.outage?.succeeded())
      .catch((error: unknown) => {
        if (!this.outage?.failed(error))
          this.logger?.warn({ err: loggableError(error) }, "account revocation feed: poll failed");
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async catchUp(): Promise<void> {
    const [clock] = await this.db
      .select({ last: revocationClock.lastSerial })
      .from(revocationClock)
      .where(sql`${revocationClock.id} = 1`);
    const last = Number(clock?.last ?? 0);
    if (this.seen === undefined) {
      this.seen = last;
      return;
    }
    while (last > this.seen) {
      const rows = await this.db
        .select({ serial: accountRevocations.serial, accountId: accountRevocations.accountId })
        .from(accountRevocations)
        .where(gt(accountRevocations.serial, this.seen))
        .orderBy(accountRevocations.serial)
        .limit(BATCH);
      // Serials have no gaps (one clock row, in commit order): a missing one was pruned while this process did not look.
      if (rows.length === 0 || Number(rows[0]!.serial) !== this.seen + 1) {
        this.listener.revokeAll();
        this.seen = last;
        break;
      }
      this.listener.revoke([...new Set(rows.map((r) => r.accountId))]);
      this.seen = Number(rows[rows.length - 1]!.serial);
    }
    const now = Date.now();
    if (now - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = now;
      await this.db
        .delete(accountRevocations)
        .where(sql`${accountRevocations.at} < now() - make_interval(secs => ${this.options.retentionMs / 1000})`);
    }
  }
}
