import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { freePort } from "./free-port.ts";
import {
  findPgPrograms,
  makeOwnedDirectory,
  processAlive,
  removeAbandonedServers,
  runPgProgram,
  stopServerSync,
  tail,
  writeOwned,
} from "./pg-programs.ts";
import { until } from "./until.ts";

/**
 * A PostgreSQL cluster of one test's own: a server made with `initdb` in a temporary directory,
 * on a free port of 127.0.0.1, that the test may stop, restart or kill (-9) without touching the
 * machine's shared server, on which other test files run at the same time.
 *
 * - Trust authentication for every user from 127.0.0.1 (a throwaway server that listens on the
 *   loopback address only), the superuser `postgres`, and no Unix socket (the temporary path may
 *   be longer than a socket path may be; pg_ctl -w reads the server's state from postmaster.pid).
 * - Ready to be a primary: `wal_level = replica`, WAL senders, and a `replication` line in its
 *   pg_hba.conf, so that helpers/pg-replica.ts can make a streaming replica of it
 *   (`startPgReplica({ primaryUrl: cluster.url() })`).
 * - fsync stays on: kill() is there to show what a crash of the server does, and crash recovery
 *   replays the WAL the server flushed (https://www.postgresql.org/docs/15/wal-reliability.html).
 *   The directory is on /dev/shm when the test runs as root (helpers/pg-programs.ts), so it is cheap.
 * - The port is picked once and kept across restarts: a client's URL stays valid.
 *
 * The programs run as the `postgres` OS user when the test process is root (pg-programs.ts). The
 * cluster is stopped and removed on destroy(), at the test process's exit, or by the next test
 * process that starts a cluster after this one died without either.
 */
export interface PgCluster {
  readonly port: number;
  readonly dataDirectory: string;
  /** The URL of `database` on it (postgres by default) as the superuser `postgres`. */
  url(database?: string): string;
  /** Whether the server was started and not stopped or killed since (by this helper). */
  readonly running: boolean;
  /** Starts a stopped (or killed) server; waits until it accepts connections. */
  start(): Promise<void>;
  /**
   * Stops the server: `fast` (the default) ends every session with an error and shuts down
   * cleanly, `immediate` ends every process at once (the next start recovers from the WAL).
   */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** stop() then start(). */
  restart(): Promise<void>;
  /**
   * Kills the postmaster with SIGKILL, as a crash would, and waits until its other processes
   * have noticed and gone (they end themselves when the postmaster dies). The next start()
   * recovers from the WAL.
   */
  kill(): Promise<void>;
  /** The postmaster's process id while it runs. */
  postmasterPid(): number | undefined;
  /** The last lines of the server's log. */
  log(lines?: number): string;
  /** Creates a database on it and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server at once and removes its directory. Safe to call twice. */
  destroy(): Promise<void>;
}

export interface PgClusterOptions {
  /** More postgresql.conf settings, written as given (`{ max_connections: "50" }`). */
  readonly settings?: Readonly<Record<string, string>>;
}

const DIRECTORY_PREFIX = "aps-gen-pg-cluster-";
const PROGRAMS = ["initdb", "pg_ctl", "postgres"];

let skipReason: string | undefined | null = null;

/**
 * Why a private cluster cannot be made on this machine, or undefined when it can: not Linux,
 * initdb or pg_ctl missing, or running as root without a postgres OS user to run them as.
 */
export function pgClusterSkipReason(): string | undefined {
  if (skipReason === null) {
    const programs = findPgPrograms(undefined, PROGRAMS);
    skipReason = typeof programs === "string" ? programs : undefined;
  }
  return skipReason;
}

/** Makes a cluster with initdb and starts it. */
export async function startPgCluster(options: PgClusterOptions = {}): Promise<PgCluster> {
  const programs = findPgPrograms(undefined, PROGRAMS);
  if (typeof programs === "string") throw new Error(`cannot make a PostgreSQL cluster here: ${programs}`);
  removeAbandonedServers(programs, DIRECTORY_PREFIX);
  const directory = makeOwnedDirectory(programs, DIRECTORY_PREFIX);
  const dataDirectory = join(directory, "data");
  const logFile = join(directory, "postgres.log");
  const run = (program: string, args: readonly string[]) => runPgProgram(programs, program, args, directory);

  let running = false;
  let destroyed = false;
  let port = 0;

  /** Synchronous, for process exit: a test process that ends without destroy() leaves no server behind. */
  const destroyOnExit = () => stopServerSync(programs, dataDirectory, directory);
  process.once("exit", destroyOnExit);

  const pgCtlStart = () => run("pg_ctl", ["start", "-D", dataDirectory, "-l", logFile, "-w", "-t", "60", "-s"]);

  const cluster: PgCluster = {
    get port() {
      return port;
    },
    dataDirectory,
    url: (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`,
    get running() {
      return running;
    },
    async start() {
      if (running) return;
      try {
        await pgCtlStart();
      } catch (error) {
        throw new Error(`${(error as Error).message}\nserver log:\n${tail(logFile)}`);
      }
      running = true;
    },
    async stop(mode = "fast") {
      if (!running) return;
      await run("pg_ctl", ["stop", "-D", dataDirectory, "-m", mode, "-w", "-t", "60", "-s"]);
      running = false;
    },
    async restart() {
      await cluster.stop();
      await cluster.start();
    },
    async kill() {
      const pid = cluster.postmasterPid();
      if (pid === undefined) return;
      const children = childrenOf(pid);
      process.kill(pid, "SIGKILL");
      running = false;
      await until("the killed postmaster to be gone", () => !processAlive(pid), 10_000);
      // Its children leave on their own when they notice (a few ms when idle); one that does not
      // would keep the shared memory attached, and the next start would refuse to run.
      try {
        await until("the killed postmaster's children to end", () => children.every((c) => !processAlive(c)), 10_000);
      } catch {
        for (const c of children) if (processAlive(c)) process.kill(c, "SIGKILL");
      }
    },
    postmasterPid() {
      if (!running) return undefined;
      try {
        const pid = Number(readFileSync(join(dataDirectory, "postmaster.pid"), "utf8").split("\n")[0]);
        return pid > 0 ? pid : undefined;
      } catch {
        return undefined;
      }
    },
    log: (lines = 30) => tail(logFile, lines),
    async createDatabase(name) {
      const admin = postgres(cluster.url(), { max: 1, onnotice: () => {}, connect_timeout: 5 });
      try {
        await admin.unsafe(`create database "${name.replaceAll('"', '""')}"`);
      } finally {
        await admin.end({ timeout: 1 });
      }
      return cluster.url(name);
    },
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      running = false;
      process.removeListener("exit", destroyOnExit);
      if (existsSync(join(dataDirectory, "postmaster.pid")))
        await run("pg_ctl", ["stop", "-D", dataDirectory, "-m", "immediate", "-w", "-t", "30", "-s"]).catch(() => {});
      stopServerSync(programs, dataDirectory, directory);
    },
  };

  try {
    // -N: initdb does not fsync what it wrote (a throwaway cluster); the server itself does.
    await run("initdb", ["-D", dataDirectory, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "-N"]);
    writeOwned(
      programs,
      join(dataDirectory, "pg_hba.conf"),
      "host all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n",
    );
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      writeOwned(programs, join(dataDirectory, "postgresql.conf"), clusterConfig(port, options.settings ?? {}));
      try {
        await pgCtlStart();
        break;
      } catch (error) {
        // Another process took the port between freePort() and the bind: try another one.
        if (attempt < 3 && /could not bind|address already in use/i.test(tail(logFile))) continue;
        throw error;
      }
    }
    running = true;
  } catch (error) {
    const log = tail(logFile);
    await cluster.destroy().catch(() => {});
    throw new Error(
      `could not start a PostgreSQL cluster: ${(error as Error).message}${log ? `\nserver log:\n${log}` : ""}`,
    );
  }
  return cluster;
}

function clusterConfig(port: number, settings: Readonly<Record<string, string>>): string {
  const lines = [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    "unix_socket_directories = ''",
    "max_connections = 50",
    "shared_buffers = '32MB'",
    "wal_level = replica",
    "max_wal_senders = 4",
    "max_replication_slots = 4",
    "ssl = off",
    "logging_collector = off",
    ...Object.entries(settings).map(([name, value]) => `${name} = ${value}`),
  ];
  return `${lines.join("\n")}\n`;
}

/** The processes whose parent is `pid` now (Linux /proc). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The field after the command (which is in parentheses and may hold spaces) is the state, then the parent's pid.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parent === pid) children.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
}
