/**
 * One PostgreSQL streaming replica that reads may go to (`serve --read-database-url`): a pool of
 * connections for the reads, and one connection of its own that asks where the replica stands.
 * replica-reads.ts decides, per read, whether it may answer; this module keeps what that needs
 * and says so in the log when the replica stops or starts being usable (once per change).
 *
 * What a poll reads (https://www.postgresql.org/docs/15/functions-admin.html#FUNCTIONS-RECOVERY-INFO-TABLE):
 * - `pg_last_wal_replay_lsn()`: the end of the last WAL record the replica has replayed. Its
 *   startup process makes a record's changes visible (for a commit: marks the transaction
 *   completed for new snapshots) before it advances this position, so a query that starts after
 *   a poll saw position P sees every transaction that committed at or before P. While the server
 *   runs, the position only grows: the last one polled (polls run one at a time) is a lower bound
 *   on where the replica is now, however old. Not across a restart: a standby that starts again
 *   replays from its last restartpoint and may take connections at an earlier position. The poll
 *   connection is held open (no idle or lifetime limit), a restart closes it, and the replica is
 *   skipped from the moment it closes until a poll on a new connection reads the new server's
 *   position.
 * - `pg_is_in_recovery()`: false on a server that is not (or no longer) a standby; its positions
 *   say nothing about the primary's, so it is skipped.
 * - `pg_control_system().system_identifier`: the cluster the data came from; a replica of another
 *   cluster (a wrong URL) is skipped for good.
 *
 * The replica is skipped while a poll or a read on it fails (unreachable, shut down, starting up,
 * no answer within the poll time-out), while it is not a standby of the primary, and while it is
 * more than `maxLagMs` behind (replica-reads.ts measures how long ago the primary was where the
 * replica is). It comes back on the first poll that finds it well: polls go on every
 * {@link POLL_EVERY_MS} while it is usable and every {@link POLL_DOWN_EVERY_MS} while it is not.
 * A lagging replica comes back once it is within half the bound, so a replica hovering around the
 * bound does not fill the log.
 */
import type { Logger } from "pino";
import postgres from "./postgres-driver.ts";
import { loggableError } from "../support/loggable-error.ts";
import { postgresPool, type Database, type Db } from "./open-database.ts";
import { NextRun } from "./next-run.ts";
import { walBytesSql, walPosition, walText } from "./wal-position.ts";
import { withinMs } from "../observability/time-bound.ts";

/** How often a usable replica is polled in the background (reads ask for a poll of their own when they need a newer position). */
const POLL_EVERY_MS = 250;
/** How often a skipped replica is asked whether it is back. */
const POLL_DOWN_EVERY_MS = 1_000;

/** Whether reads may go to a replica, and if not, why. */
export type ReplicaState = "starting" | "up" | "lagging" | "down" | "not a standby" | "another cluster";

/** A replica as /readyz and /metrics report it. */
export interface ReplicaStatus {
  /** host:port, as in the metrics' labels. */
  readonly replica: string;
  readonly state: ReplicaState;
  /** Why it is skipped; absent while it is up. */
  readonly reason?: string;
  /** The last replay position polled (pg_lsn text); null before the first poll that read one, or after the replica was lost. */
  readonly replayed: string | null;
  /** How long ago the primary was where the replica is, as last measured (seconds). */
  readonly lagSeconds: number;
}

/** What the replica is compared with, from replica-reads.ts. */
export interface PrimaryView {
  /** The primary's system identifier (once known; undefined before). */
  system(): Promise<string | undefined>;
  /** How long ago (ms) the primary was seen past `position`; 0 when it never was. */
  lagMs(position: bigint): number;
  readonly maxLagMs: number;
}

export interface ReadReplicaOptions {
  readonly statementTimeoutMs?: number;
  /** Connection attempts give up after this (default 2 s): a replica that went away must not hold reads for postgres.js's 30 s. */
  readonly connectTimeoutSeconds?: number;
  /** A poll that takes longer counts as a failure (default 1 s). */
  readonly pollTimeoutMs?: number;
}

interface PollRow {
  standby: boolean;
  replayed: string | null;
  system: string;
}

const POLL = `select pg_is_in_recovery() as standby, ${walBytesSql("pg_last_wal_replay_lsn()")} as replayed, (select system_identifier::text from pg_control_system()) as system`;

export class ReadReplica {
  /** The pool reads run on. */
  readonly db: Db;
  private readonly pool: Database;
  private poller: postgres.Sql;
  /** The last replay position polled; -1 before the first (see the module's comment for why it may be trusted). */
  private replayed = -1n;
  private standby = true;
  private sameCluster = true;
  /** The last poll's or read's failure, until a poll succeeds. */
  private failure: string | undefined = "not asked yet";
  private current: ReplicaState = "starting";
  private lastLagMs = 0;
  private readonly polls = new NextRun(() => this.poll());
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly pollTimeoutMs: number;
  private readonly connectTimeoutSeconds: number;

  constructor(
    /** host:port: names it in logs, metrics and /readyz (never the URL: it may hold a password). */
    readonly name: string,
    private readonly url: string,
    private readonly primary: PrimaryView,
    private readonly logger: Logger,
    options: ReadReplicaOptions = {},
  ) {
    this.connectTimeoutSeconds = options.connectTimeoutSeconds ?? 2;
    this.pollTimeoutMs = options.pollTimeoutMs ?? 1_000;
    this.pool = postgresPool(url, {
      statementTimeoutMs: options.statementTimeoutMs,
      connectTimeoutSeconds: this.connectTimeoutSeconds,
    });
    this.db = this.pool.db;
    this.poller = this.newPoller();
  }

  /** Starts the background polls (the first one at once). */
  start(): void {
    void this.polls.next().then(() => this.schedule());
  }

  /** Whether reads may go to it now (its lag measured at this moment). */
  usable(): boolean {
    return this.evaluate() === "up";
  }

  /** Whether it had replayed `position` when last polled: a query started now sees everything committed up to there. */
  covers(position: bigint): boolean {
    return this.replayed >= position;
  }

  /** A poll that starts after this call (shared with other callers): for a read whose fence is past {@link covers}. Never rejects. */
  fresh(): Promise<void> {
    return this.polls.next();
  }

  /** A read on it failed for a reason of the database or the connection: skip it until a poll finds it well. */
  failed(error: unknown): void {
    this.failure = `a read failed: ${(error as Error)?.message ?? String(error)}`;
    this.replayed = -1n;
    this.evaluate();
  }

  status(): ReplicaStatus {
    const state = this.evaluate();
    return {
      replica: this.name,
      state,
      ...(state === "up" ? {} : { reason: this.why(state) }),
      replayed: this.replayed >= 0n ? walText(this.replayed) : null,
      lagSeconds: this.lastLagMs / 1000,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await Promise.all([this.poller.end({ timeout: 1 }).catch(() => {}), this.pool.close().catch(() => {})]);
  }

  private newPoller(): postgres.Sql {
    const poller: postgres.Sql = postgres(this.url, {
      max: 1,
      onnotice: () => {},
      connect_timeout: this.connectTimeoutSeconds,
      // Held open for good: its closing is how a restart of the replica is noticed at once.
      idle_timeout: 0,
      max_lifetime: 0,
      onclose: () => this.pollerClosed(poller),
      connection: { application_name: "aps-gen replica poll" },
    });
    return poller;
  }

  /** The poll connection closed: the server may be restarting, and its position polled so far may be ahead of the next run's. */
  private pollerClosed(poller: postgres.Sql): void {
    if (this.closed || poller !== this.poller) return;
    this.failure = "its connection closed (the server shut down or restarted)";
    this.replayed = -1n;
    this.evaluate();
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(
      () => void this.polls.next().then(() => this.schedule()),
      this.current === "up" || this.current === "lagging" ? POLL_EVERY_MS : POLL_DOWN_EVERY_MS,
    );
    this.timer.unref();
  }

  /** One poll; what it finds (or its failure) is kept, and the state evaluated. */
  private async poll(): Promise<void> {
    if (this.closed) return;
    try {
      const [row] = await withinMs(this.poller.unsafe<PollRow[]>(POLL), this.pollTimeoutMs);
      const position = walPosition(row!.replayed);
      this.replayed = position ?? -1n;
      this.standby = row!.standby && position !== undefined;
      const system = await this.primary.system();
      this.sameCluster = system === undefined || system === row!.system;
      this.failure = undefined;
    } catch (error) {
      this.failure = (error as Error).message;
      this.replayed = -1n;
      // A poll that timed out may still hold the one connection: start over on a new one.
      const stale = this.poller;
      this.poller = this.newPoller();
      void stale.end({ timeout: 0 }).catch(() => {});
      this.logger.debug({ replica: this.name, error: loggableError(error) }, "read replica poll failed");
    }
    this.evaluate();
  }

  /** The state now; a change is logged once. */
  private evaluate(): ReplicaState {
    const next = this.stateNow();
    if (next !== this.current) {
      const before = this.current;
      this.current = next;
      if (next === "up")
        this.logger.info(
          { replica: this.name, was: before },
          `read replica ${this.name} is ${before === "starting" ? "usable" : "back"}: reads may go to it`,
        );
      else if (before !== "starting" || next !== "down")
        this.logger.warn(
          { replica: this.name, state: next, reason: this.why(next) },
          `read replica ${this.name} skipped (${this.why(next)}): its reads go to the primary`,
        );
      else
        this.logger.warn(
          { replica: this.name, state: next, reason: this.why(next) },
          `read replica ${this.name} not reachable yet (${this.why(next)}): its reads go to the primary until it is`,
        );
    }
    return next;
  }

  private stateNow(): ReplicaState {
    if (this.failure !== undefined) return this.replayed < 0n && this.failure === "not asked yet" ? "starting" : "down";
    if (!this.sameCluster) return "another cluster";
    if (!this.standby) return "not a standby";
    this.lastLagMs = this.primary.lagMs(this.replayed);
    const bound = this.current === "lagging" ? this.primary.maxLagMs / 2 : this.primary.maxLagMs;
    return this.lastLagMs > bound ? "lagging" : "up";
  }

  private why(state: ReplicaState): string {
    switch (state) {
      case "starting":
        return "not polled yet";
      case "down":
        return `unreachable: ${this.failure}`;
      case "another cluster":
        return "it replicates another cluster than the primary (system identifiers differ)";
      case "not a standby":
        return "it is not in recovery: not a streaming replica";
      case "lagging":
        return `${(this.lastLagMs / 1000).toFixed(1)} s behind the primary, over the bound of ${this.primary.maxLagMs / 1000} s`;
      case "up":
        return "usable";
    }
  }
}
