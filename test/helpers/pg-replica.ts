import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { freePort } from "./free-port.ts";
import {
  findPgPrograms,
  makeOwnedDirectory,
  type PgPrograms,
  processAlive,
  removeAbandonedServers,
  runPgProgram,
  stopServerSync,
  tail,
  writeOwned,
} from "./pg-programs.ts";
import { until } from "./until.ts";

/**
 * A real streaming replica of a PostgreSQL server: a second server on another port, made with
 * `pg_basebackup -R` into a temporary data directory and started with `pg_ctl`, which replays the
 * primary's WAL as it streams in and answers read-only queries (hot standby). For suites that need
 * a primary and a replica that lags behind it. The primary is the server a test runs against
 * (DATABASE_URL) unless `primaryUrl` names another, such as a private cluster's
 * (helpers/pg-cluster.ts), for a suite that stops or restarts its primary.
 *
 * How it is made (https://www.postgresql.org/docs/15/app-pgbasebackup.html):
 * - `pg_basebackup -X stream -R -C -S <slot> --checkpoint=fast` copies the primary's data
 *   directory over a replication connection, streams the WAL written meanwhile beside it, writes
 *   `standby.signal` and `primary_conninfo` (-R), and creates a physical replication slot (-C -S)
 *   that the replica then streams through (`primary_slot_name`, also written by -R). A fast
 *   checkpoint starts the copy at once instead of after a spread checkpoint (minutes by default).
 * - The slot: the primary keeps every WAL segment the replica has not received yet. Without one,
 *   the replica must connect before the primary recycles the segment the copy ended in, and a busy
 *   primary (the test run's other suites create and drop databases, and a DROP DATABASE forces a
 *   checkpoint) could recycle it first: the replica would then fail with "requested WAL segment
 *   has already been removed". The price of a slot is WAL piling up on the primary while a slot
 *   outlives its replica, so stop() drops it, and start() drops the slots left by test processes
 *   that died (named `aps_gen_replica_<pid>_...`, dropped when inactive and that pid is gone).
 * - A Debian cluster keeps postgresql.conf and pg_hba.conf in /etc/postgresql, not in its data
 *   directory, so the copy may have none (a cluster made by initdb has them in its data
 *   directory, and the copy brings them along): either way the replica gets its own, listening
 *   on 127.0.0.1 only, without a Unix socket, trusting local connections, and with the settings
 *   a hot standby must have at least as large as its primary's (max_connections and the others
 *   listed in https://www.postgresql.org/docs/15/hot-standby.html#HOT-STANDBY-ADMIN) copied from
 *   the primary. postgresql.auto.conf (ALTER SYSTEM) comes along with the copy.
 *
 * The programs run as the `postgres` OS user when the test process is root (helpers/pg-programs.ts
 * says how and where the directory goes).
 *
 * The primary must accept a replication connection from 127.0.0.1: `.ci/allow-local-replication`
 * sets that up for the shared server, and a private cluster has it from the start.
 * pgReplicaSkipReason() says why a replica cannot be made here, for a suite to skip.
 */
export interface PgReplica {
  /** The replica's URL: the primary's URL with the replica's port (same user and database). */
  readonly url: string;
  readonly port: number;
  readonly dataDirectory: string;
  /** The name of the physical replication slot on the primary, also the replica's `cluster_name` and so its `application_name` there. */
  readonly slot: string;
  /** The last WAL position the replica has replayed (`pg_last_wal_replay_lsn()`), as text such as "0/3000148". */
  replayLsn(): Promise<string>;
  /** How far the replica is behind, as the primary sees it (pg_stat_replication). */
  lag(): Promise<ReplicaLag>;
  /** Waits until the replica has replayed everything the primary had written to disk when this was called. */
  waitForReplay(ms?: number): Promise<void>;
  /** Stops the replica's server (fast shutdown) and keeps its data, slot and port: `resume()` starts it again. */
  halt(): Promise<void>;
  /** Starts a halted replica again; it streams on from where it stopped. */
  resume(): Promise<void>;
  /**
   * Sets one of the replica's settings (ALTER SYSTEM, in its postgresql.auto.conf) and reloads its
   * configuration: `recovery_min_apply_delay` makes it replay each commit that much later than
   * the primary made it (https://www.postgresql.org/docs/15/runtime-config-replication.html#GUC-RECOVERY-MIN-APPLY-DELAY).
   */
  configure(name: string, value: string): Promise<void>;
  /** Stops the replica (fast shutdown), drops its slot and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

export interface ReplicaLag {
  /** The primary's WAL flush position. */
  readonly primaryLsn: string;
  /** What the replica reported last as replayed; null before its first report. */
  readonly replayLsn: string | null;
  /** Bytes of WAL between the two. */
  readonly bytes: number | null;
  /** PostgreSQL's measured replay delay in seconds; null when the replica is idle and caught up. */
  readonly replaySeconds: number | null;
  /** The walsender's state: "startup", "catchup", "streaming"...; null when the replica is not connected. */
  readonly state: string | null;
}

const DIRECTORY_PREFIX = "aps-gen-pg-replica-";
const SLOT_PREFIX = "aps_gen_replica_";
/** The primary's settings a hot standby must have at least as large (it refuses to start otherwise). */
const AT_LEAST_PRIMARY = [
  "max_connections",
  "max_worker_processes",
  "max_wal_senders",
  "max_prepared_transactions",
  "max_locks_per_transaction",
];

/** Which server to replicate. */
export interface PgReplicaOptions {
  /** The primary's URL (a user allowed to replicate, any database); DATABASE_URL by default. */
  readonly primaryUrl?: string;
}

const skipReasons = new Map<string, Promise<string | undefined>>();

/**
 * Why a replica of the primary cannot be made on this machine, or undefined when it can: no
 * DATABASE_URL, the server unreachable, pg_basebackup or pg_ctl of its version missing, no way
 * to run them as a user other than root, or the server refusing replication connections.
 */
export function pgReplicaSkipReason({
  primaryUrl = process.env.DATABASE_URL,
}: PgReplicaOptions = {}): Promise<string | undefined> {
  if (!primaryUrl) return Promise.resolve("DATABASE_URL is not set: no PostgreSQL server to replicate");
  let reason = skipReasons.get(primaryUrl);
  if (!reason) {
    reason = findTools(primaryUrl).then((tools) => (typeof tools === "string" ? tools : undefined));
    skipReasons.set(primaryUrl, reason);
  }
  return reason;
}

/** Makes and starts a replica of the primary (DATABASE_URL by default); waits until it accepts read-only connections. */
export async function startPgReplica({
  primaryUrl = process.env.DATABASE_URL,
}: PgReplicaOptions = {}): Promise<PgReplica> {
  if (!primaryUrl) throw new Error("DATABASE_URL is not set: no PostgreSQL server to replicate");
  const tools = await findTools(primaryUrl);
  if (typeof tools === "string") throw new Error(`cannot make a PostgreSQL replica here: ${tools}`);
  const primary = postgres(primaryUrl, { max: 1, onnotice: () => {} });
  await removeAbandoned(tools, primary);

  const slot = `${SLOT_PREFIX}${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const directory = makeOwnedDirectory(tools, DIRECTORY_PREFIX);
  const dataDirectory = join(directory, "data");
  const logFile = join(directory, "postgres.log");
  const run = (program: string, args: readonly string[]) => runPgProgram(tools, program, args, directory);

  let replicaSql: postgres.Sql | undefined;
  let state: "starting" | "running" | "halted" | "stopped" = "starting";
  let url = "";
  let port = 0;

  /** Synchronous, for process exit: a test process that ends without stop() leaves no server behind. */
  const stopOnExit = () => {
    stopServerSync(tools, dataDirectory, directory);
    spawnSync(
      join(tools.bin, "psql"),
      [
        primaryUrl,
        "-XAtqc",
        `select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = '${slot}' and not active`,
      ],
      { stdio: "ignore", timeout: 5_000 },
    );
  };
  process.once("exit", stopOnExit);

  const stop = async () => {
    if (state === "stopped") return;
    state = "stopped";
    process.removeListener("exit", stopOnExit);
    await replicaSql?.end({ timeout: 1 }).catch(() => {});
    try {
      if (existsSync(join(dataDirectory, "postmaster.pid"))) {
        await run("pg_ctl", ["stop", "-D", dataDirectory, "-m", "fast", "-w", "-t", "30", "-s"]).catch(() =>
          run("pg_ctl", ["stop", "-D", dataDirectory, "-m", "immediate", "-w", "-t", "30", "-s"]),
        );
      }
      // The primary's walsender notices the replica's walreceiver went away a moment after it did.
      await until(
        `replication slot ${slot} to be released`,
        async () => {
          const rows = await primary`select active from pg_replication_slots where slot_name = ${slot}`;
          if (rows.length === 0) return true;
          if (rows[0]!.active) return false;
          await primary`select pg_drop_replication_slot(${slot})`;
          return true;
        },
        15_000,
      );
    } finally {
      await primary.end({ timeout: 1 }).catch(() => {});
      rmSync(directory, { recursive: true, force: true });
    }
  };

  try {
    const settings = await primary<
      { name: string; setting: string }[]
    >`select name, setting from pg_settings where name in ${primary(AT_LEAST_PRIMARY)}`;
    // Fast checkpoint: otherwise the copy waits for a spread checkpoint. No fsync and no manifest:
    // a throwaway copy, not a backup.
    await run("pg_basebackup", [
      "-d",
      primaryUrl,
      "-D",
      dataDirectory,
      "-X",
      "stream",
      "-R",
      "-C",
      "-S",
      slot,
      "--checkpoint=fast",
      "--no-sync",
      "--no-manifest",
    ]);
    writeOwned(tools, join(dataDirectory, "pg_hba.conf"), "local all all trust\nhost all all 127.0.0.1/32 trust\n");
    writeOwned(tools, join(dataDirectory, "pg_ident.conf"), "");
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      writeOwned(tools, join(dataDirectory, "postgresql.conf"), replicaConfig(port, slot, settings));
      try {
        await run("pg_ctl", ["start", "-D", dataDirectory, "-l", logFile, "-w", "-t", "60", "-s"]);
        break;
      } catch (error) {
        // Another process took the port between freePort() and the bind: try another one.
        if (attempt < 3 && /could not bind|address already in use/i.test(tail(logFile))) continue;
        throw error;
      }
    }
    url = Object.assign(new URL(primaryUrl), { port: String(port) }).toString();
    state = "running";
  } catch (error) {
    const log = tail(logFile);
    await stop().catch(() => {});
    throw new Error(
      `could not start a replica of ${primaryUrl}: ${(error as Error).message}${log ? `\nreplica log:\n${log}` : ""}`,
    );
  }

  const replica = () => (replicaSql ??= postgres(url, { max: 1, onnotice: () => {} }));

  return {
    url,
    port,
    dataDirectory,
    slot,
    replayLsn: async () => {
      const [row] = await replica()`select pg_last_wal_replay_lsn()::text as lsn`;
      return row!.lsn as string;
    },
    lag: async () => {
      const [row] = await primary`
        select pg_current_wal_flush_lsn()::text as primary_lsn, r.replay_lsn::text as replay_lsn,
               pg_wal_lsn_diff(pg_current_wal_flush_lsn(), r.replay_lsn)::float8 as bytes,
               extract(epoch from r.replay_lag)::float8 as replay_seconds, r.state
        from (select 1) one left join pg_stat_replication r on r.application_name = ${slot}`;
      return {
        primaryLsn: row!.primary_lsn,
        replayLsn: row!.replay_lsn,
        bytes: row!.bytes,
        replaySeconds: row!.replay_seconds,
        state: row!.state,
      };
    },
    waitForReplay: async (ms = 10_000) => {
      const [row] = await primary`select pg_current_wal_flush_lsn()::text as lsn`;
      const target = row!.lsn as string;
      await until(
        `the replica to replay the primary's WAL up to ${target}`,
        async () => {
          const [r] = await replica()`select pg_last_wal_replay_lsn() >= ${target}::pg_lsn as done`;
          return r!.done === true;
        },
        ms,
      );
    },
    halt: async () => {
      if (state !== "running") throw new Error(`the replica is ${state}, not running`);
      await replicaSql?.end({ timeout: 1 }).catch(() => {});
      replicaSql = undefined;
      await run("pg_ctl", ["stop", "-D", dataDirectory, "-m", "fast", "-w", "-t", "30", "-s"]);
      state = "halted";
    },
    resume: async () => {
      if (state !== "halted") throw new Error(`the replica is ${state}, not halted`);
      await run("pg_ctl", ["start", "-D", dataDirectory, "-l", logFile, "-w", "-t", "60", "-s"]);
      state = "running";
    },
    configure: async (name, value) => {
      if (!/^[a-z_]+$/.test(name)) throw new Error(`not a setting name: ${name}`);
      await replica().unsafe(`alter system set ${name} = '${value.replace(/'/g, "''")}'`);
      await replica()`select pg_reload_conf()`;
      // The reload is a signal: the setting is in force once the server says so.
      await until(
        `the replica's ${name} to be ${value}`,
        async () => {
          const [row] = await replica().unsafe(`select current_setting('${name}') as value`);
          return row!.value === value;
        },
        5_000,
      );
    },
    stop,
  };
}

function replicaConfig(
  port: number,
  slot: string,
  primarySettings: readonly { name: string; setting: string }[],
): string {
  const lines = [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    // No Unix socket: the run's temporary paths can be longer than a socket path may be, and
    // pg_ctl -w reads the server's state from postmaster.pid, not through a connection.
    "unix_socket_directories = ''",
    "hot_standby = on",
    // The walreceiver's status reports carry the replayed position to pg_stat_replication: every second instead of every 10.
    "wal_receiver_status_interval = '1s'",
    `cluster_name = '${slot}'`,
    "shared_buffers = '32MB'",
    "fsync = off",
    "ssl = off",
    "logging_collector = off",
    ...primarySettings.map((s) => `${s.name} = ${s.setting}`),
  ];
  return `${lines.join("\n")}\n`;
}

/** The programs, or why there are none. */
async function findTools(primaryUrl: string): Promise<PgPrograms | string> {
  let major: number;
  let walLevel: string;
  let senders: number;
  const sql = postgres(primaryUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    const [row] =
      await sql`select current_setting('server_version_num')::int / 10000 as major, current_setting('wal_level') as wal_level, current_setting('max_wal_senders')::int as senders`;
    ({ major, wal_level: walLevel, senders } = row as unknown as { major: number; wal_level: string; senders: number });
  } catch (error) {
    return `cannot reach the primary ${primaryUrl}: ${(error as Error).message}`;
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
  if (walLevel === "minimal" || senders === 0)
    return `the primary has wal_level=${walLevel} and max_wal_senders=${senders}: a replica needs wal_level replica and at least one WAL sender (changing them takes a restart)`;

  const tools = findPgPrograms(major, ["pg_basebackup", "pg_ctl", "psql"]);
  if (typeof tools === "string") return tools;

  // A replication connection matches only pg_hba.conf lines for the `replication` database.
  const probe = spawnSync(
    join(tools.bin, "psql"),
    [withParameter(primaryUrl, "replication", "true"), "-XAtqc", "IDENTIFY_SYSTEM"],
    { encoding: "utf8", timeout: 10_000, env: { ...process.env, PGCONNECT_TIMEOUT: "5" } },
  );
  if (probe.status !== 0)
    return `the primary refuses a replication connection (run .ci/allow-local-replication): ${(probe.stderr || probe.error?.message || "").replace(/^psql: error: /, "").trim()}`;
  return tools;
}

function withParameter(url: string, name: string, value: string): string {
  const u = new URL(url);
  u.searchParams.set(name, value);
  return u.toString();
}

/**
 * Stops and removes the replicas whose test process is gone (killed before stop() or its exit
 * handler ran), and drops the slots such processes left on the primary.
 */
async function removeAbandoned(tools: PgPrograms, primary: postgres.Sql): Promise<void> {
  removeAbandonedServers(tools, DIRECTORY_PREFIX);
  const slots =
    await primary`select slot_name from pg_replication_slots where slot_name like ${`${SLOT_PREFIX}%`} and not active`;
  for (const { slot_name: slot } of slots) {
    const pid = Number(/^aps_gen_replica_(\d+)_/.exec(slot as string)?.[1]);
    if (pid && !processAlive(pid)) await primary`select pg_drop_replication_slot(${slot as string})`.catch(() => {});
  }
}
