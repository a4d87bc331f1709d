/**
 * Where a read goes when the controller has streaming replicas (`serve --read-database-url`):
 * to a replica that has replayed every write acknowledged before the read arrived, on any
 * controller, else to the primary. The one place that decides; the routes that may read from a
 * replica (GET of a resource, lists, links) hand their work to {@link ReplicaReads.read}, and
 * everything else (every write, and every read inside a write) runs on the primary.
 *
 * Read-your-writes, strictly, with a fence:
 * 1. A read arrives. The fence is the primary's WAL position from a query sent after that
 *    (`pg_current_wal_lsn()`, the position written out of PostgreSQL's buffers). A write
 *    acknowledged before the read arrived had its commit record flushed before its
 *    acknowledgement (synchronous_commit on, local, or remote_*), so the fence is at or past it,
 *    whichever controller made it. With synchronous_commit off a commit is acknowledged before it
 *    is written, and the fence is then the insert position instead (`pg_current_wal_insert_lsn()`),
 *    which covers it too.
 * 2. A replica may answer only when its replay position, read by a poll (read-replica.ts), is at
 *    or past the fence: the replica then shows every transaction committed up to the fence to a
 *    query that starts after the poll, which the read's queries do. A position read earlier is a
 *    lower bound (positions only grow while the replica's server runs; read-replica.ts says how a
 *    restart is caught); when it falls short, the read asks for a poll of its own
 *    (shared with the reads waiting beside it), and when that falls short too, it reads from the
 *    primary. No replica is made to wait for.
 * 3. Fences are shared: a read waits for the next fence query that starts after it arrived, and
 *    every read that arrives before that query starts takes its answer (next-run.ts). So each
 *    controller process sends the primary at most one fence query per round trip, however many
 *    reads it serves: under load, many reads to one trivial query.
 *
 * What the fence costs a read: one round trip to the primary (shared), and sometimes one to the
 * replica. What it does not do: see a write that is still in flight when the read arrives (no
 * read can promise that), or hold when the primary is unreachable (a read needs its fence: the
 * read then goes to the primary, which answers as it answers any request while it is away).
 *
 * A replica is skipped while it is unreachable, not a standby of this primary, or more than the
 * lag bound behind; how far behind is measured with the fences themselves: the controller keeps
 * when it first saw the primary past each position (`lagMs`), and a replica whose replay position
 * the primary had passed t ms ago is at least t ms behind. A read that fails on a replica for a
 * database reason (its server went away mid-read, a recovery conflict) is read again on the
 * primary and the replica skipped until a poll finds it well, so a replica going away fails no
 * request.
 */
import { sql } from "drizzle-orm";
import type { Logger } from "pino";
import { loggableError } from "../support/loggable-error.ts";
import { isStatementTimeout } from "./statement-timeout.ts";
import { executePrepared, rowsOf, type Db } from "./open-database.ts";
import { NextRun } from "./next-run.ts";
import { ReadReplica, type ReadReplicaOptions, type ReplicaStatus } from "./read-replica.ts";
import { walBytesSql, walPosition } from "./wal-position.ts";

/** Default of `--read-max-lag`. */
const DEFAULT_READ_MAX_LAG_MS = 1_000;

/**
 * The fence: the primary's write position, or its insert position where commits are acknowledged
 * before they are written (see the module's comment, step 1). Read on the pool the writes use, so
 * with the setting they commit under.
 */
const FENCE = `select case when current_setting('synchronous_commit') = 'off' then ${walBytesSql("pg_current_wal_insert_lsn()")} else ${walBytesSql("pg_current_wal_lsn()")} end as position`;

/** Why a read that could have gone to a replica did not go to it. */
export type SkipReason = "behind" | "failed";

/** What the router counts (observability/metrics.ts). */
export interface ReadCounters {
  /** A read answered by `target`: "primary" or a replica's name. */
  served(target: string): void;
  /** A fence query sent to the primary. */
  fence(): void;
  /** A read that did not go to `replica`: it had not replayed the fence, or the read failed on it. */
  skipped(replica: string, reason: SkipReason): void;
}

export interface ReplicaReadsOptions extends ReadReplicaOptions {
  /** The replicas' URLs with the name each goes by (host:port). */
  readonly replicas: readonly { readonly name: string; readonly url: string }[];
  /** Skip a replica more than this far behind the primary (default {@link DEFAULT_READ_MAX_LAG_MS}). */
  readonly maxLagMs?: number;
  /**
   * Tests only: false serves reads from any usable replica without a fence, to show what the
   * fence prevents (a read right after a write missing it). Never set by `aps-gen serve`.
   */
  readonly fence?: boolean;
}

/**
 * The lag's history keeps one sighting per this fraction of the bound (at least 5 ms apart) for
 * twice the bound: about a thousand entries, whatever the read rate.
 */
const HISTORY_STEPS = 500;

export class ReplicaReads {
  private readonly replicas: ReadReplica[];
  private readonly fences: NextRun<bigint>;
  private readonly fenced: boolean;
  readonly maxLagMs: number;
  /** When the primary was first seen past each position, oldest first, positions increasing: the lag's yardstick. */
  private readonly history: { at: number; position: bigint }[] = [];
  private primarySystem: Promise<string | undefined> | undefined;
  private turn = 0;

  constructor(
    private readonly primary: Db,
    options: ReplicaReadsOptions,
    private readonly counters: ReadCounters,
    private readonly logger: Logger,
  ) {
    this.maxLagMs = options.maxLagMs ?? DEFAULT_READ_MAX_LAG_MS;
    this.fenced = options.fence !== false;
    this.fences = new NextRun(() => this.fence());
    const view = {
      system: () => this.system(),
      lagMs: (position: bigint) => this.lagMs(position),
      maxLagMs: this.maxLagMs,
    };
    this.replicas = options.replicas.map((r) => new ReadReplica(r.name, r.url, view, logger, options));
  }

  /** Starts polling the replicas. */
  start(): void {
    for (const r of this.replicas) r.start();
  }

  /**
   * Runs `work` (reads only) on a replica that has every write acknowledged before this call, or
   * on the primary; a failure of the replica's database is read again on the primary. `work`
   * must be safe to run twice.
   */
  async read<T>(work: (db: Db) => Promise<T>): Promise<T> {
    const usable = this.replicas.filter((r) => r.usable());
    if (usable.length === 0) return this.onPrimary(work);
    let chosen: ReadReplica | undefined;
    if (this.fenced) {
      let fence: bigint;
      try {
        fence = await this.fences.next();
      } catch (error) {
        // The primary does not answer: the read goes there, and fails or succeeds as any request would.
        this.logger.debug({ error: loggableError(error) }, "read fence failed");
        return this.onPrimary(work);
      }
      chosen = this.pick(usable, fence) ?? (await this.afterPolls(usable, fence));
      if (!chosen) {
        for (const r of usable) this.counters.skipped(r.name, "behind");
        return this.onPrimary(work);
      }
    } else chosen = this.pick(usable, undefined);
    if (!chosen) return this.onPrimary(work);
    let result: T;
    try {
      result = await work(chosen.db);
    } catch (error) {
      if (!isDatabaseFailure(error)) {
        // The read's own answer (404, 403, 400...): the replica served it.
        this.counters.served(chosen.name);
        throw error;
      }
      chosen.failed(error);
      this.counters.skipped(chosen.name, "failed");
      return this.onPrimary(work);
    }
    this.counters.served(chosen.name);
    return result;
  }

  /** Every replica's state, for /readyz and /metrics. */
  statuses(): ReplicaStatus[] {
    return this.replicas.map((r) => r.status());
  }

  async close(): Promise<void> {
    await Promise.all(this.replicas.map((r) => r.close()));
  }

  private async onPrimary<T>(work: (db: Db) => Promise<T>): Promise<T> {
    this.counters.served("primary");
    return work(this.primary);
  }

  /** One of the replicas that covers `fence` (all usable ones without a fence), in turn. */
  private pick(replicas: readonly ReadReplica[], fence: bigint | undefined): ReadReplica | undefined {
    // Usable again: one may have been skipped while the fence was on its way.
    const ready = replicas.filter((r) => r.usable() && (fence === undefined || r.covers(fence)));
    if (ready.length === 0) return undefined;
    this.turn = (this.turn + 1) % 1_000_000;
    return ready[this.turn % ready.length];
  }

  /** Polls each replica once (shared with other reads) and picks one that covers `fence` as soon as one does. */
  private afterPolls(replicas: readonly ReadReplica[], fence: bigint): Promise<ReadReplica | undefined> {
    return new Promise((resolve) => {
      let left = replicas.length;
      for (const r of replicas) {
        void r.fresh().then(() => {
          if (r.usable() && r.covers(fence)) resolve(r);
          else if (--left === 0) resolve(undefined);
        });
      }
    });
  }

  /** One fence query (see the module's comment); its answer also goes into the lag's history. */
  private async fence(): Promise<bigint> {
    this.counters.fence();
    const [row] = rowsOf<{ position: string }>(await executePrepared(this.primary, { text: FENCE, values: [] }));
    const position = walPosition(row?.position);
    if (position === undefined) throw new Error("the primary gave no WAL position (is it a standby itself?)");
    this.remember(position);
    return position;
  }

  private remember(position: bigint): void {
    const now = Date.now();
    const last = this.history.at(-1);
    if (last && (position <= last.position || now - last.at < Math.max(5, this.maxLagMs / HISTORY_STEPS))) return;
    this.history.push({ at: now, position });
    // Past twice the bound, a sighting tells no more than that a replica before it is lagging, which a later one tells too.
    while (this.history.length > 2 && this.history[0]!.at < now - 2 * this.maxLagMs) this.history.shift();
  }

  /** How long ago the primary was first seen past `position` (0 when it never was): how far behind a replica at `position` is, at least. */
  private lagMs(position: bigint): number {
    const h = this.history;
    if (h.length === 0 || h[h.length - 1]!.position <= position) return 0;
    // The first sighting past `position`: positions increase along the history.
    let lo = 0;
    let hi = h.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (h[mid]!.position > position) hi = mid;
      else lo = mid + 1;
    }
    return Math.max(0, Date.now() - h[lo]!.at);
  }

  /** The primary's system identifier, asked once it answers; undefined until then. */
  private system(): Promise<string | undefined> {
    this.primarySystem ??= this.primary
      .execute(sql.raw("select system_identifier::text as system from pg_control_system()"))
      .then(
        (result) => rowsOf<{ system: string }>(result)[0]?.system,
        () => {
          this.primarySystem = undefined;
          return undefined;
        },
      );
    return this.primarySystem;
  }
}

/**
 * Whether a read failed because of the database it ran on rather than because of what it asked:
 * connection errors (postgres.js codes such as CONNECTION_CLOSED, or the socket's ECONNREFUSED),
 * and server errors with a SQLSTATE (a shutdown, a recovery conflict). A statement time-out is
 * not one: the same query would take as long on the primary.
 */
function isDatabaseFailure(error: unknown): boolean {
  if (isStatementTimeout(error)) return false;
  for (let e = error, hops = 0; e && typeof e === "object" && hops < 5; e = (e as { cause?: unknown }).cause, hops++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (/^[0-9A-Z]{5}$/.test(code) || /^(CONNECT|CONNECTION)_|^E[A-Z]+$/.test(code)))
      return true;
  }
  return false;
}
