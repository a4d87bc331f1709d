import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.ts";
import { until } from "./until.ts";

/**
 * A real HAProxy (Debian's package: `apt-get install -y haproxy`, which .ci/run does) in front
 * of several HTTPS servers, for suites that run more than one controller behind one address.
 *
 * TCP mode with TLS passthrough: HAProxy forwards the bytes of each connection to one backend
 * and never terminates TLS, so the client's TLS session, its client certificate included
 * (mutual TLS), is with the backend itself. Connections, not requests, are balanced: a client
 * that keeps its connection open stays on one backend.
 *
 * Health checks are HTTP over TLS even so: `option httpchk` with `http-check send/expect`
 * works in TCP mode, and `check-ssl` makes the check (and only the check) speak TLS to the
 * server (https://docs.haproxy.org/2.6/configuration.html#5.2-check-ssl). The check presents no
 * client certificate: a backend must ask for one without requiring it in the handshake and
 * decide per request, as the controller does, or it is marked down. `verify none`: the check
 * does not verify the backend's certificate (the client does, end to end).
 *
 * The process runs in the foreground (-db) as a child of the test process, which the kernel
 * kills with it if the test process dies first (setpriv --pdeathsig, when util-linux has it):
 * no proxy outlives its test. Backend states come from the admin socket's `show stat`
 * (https://docs.haproxy.org/2.6/management.html#9.3-show%20stat).
 */
export interface Haproxy {
  /** The port HAProxy accepts connections on, at 127.0.0.1. */
  readonly port: number;
  /** Every backend server's state as HAProxy sees it now. */
  backendStates(): Promise<BackendState[]>;
  /** Waits until the backend server `name` has `status` ("UP", "DOWN", "MAINT"...); returns its state. */
  waitForBackend(name: string, status: string, ms?: number): Promise<BackendState>;
  /** Sends one command to the admin socket and returns the answer ("disable server backends/b0"...). */
  command(text: string): Promise<string>;
  /** Stops HAProxy and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

export interface HaproxyBackend {
  /** The server's name in HAProxy's stats; "b<index>" by default. */
  readonly name?: string;
  readonly host: string;
  readonly port: number;
}

export interface HaproxyOptions {
  readonly backends: readonly HaproxyBackend[];
  /** Where HAProxy listens on 127.0.0.1; a free port by default. */
  readonly port?: number;
  readonly balance?: "roundrobin" | "leastconn";
  /**
   * Every backend a second time as a `backup` server without a health check (named
   * "<name>-any"): when every server fails its check, as all controllers do while their shared
   * database is away, connections still reach a controller, which answers 503 with Retry-After
   * itself, instead of being closed by HAProxy. A backup that refuses the connection (a dead
   * process) is skipped by `option redispatch`. Off by default; `backendStates()` lists the
   * checked servers only.
   */
  readonly fallbackToAll?: boolean;
  /** The path the health check GETs; /readyz by default. */
  readonly healthPath?: string;
  /** Milliseconds between checks; 200 by default, so that a test sees a change quickly. */
  readonly checkIntervalMs?: number;
  /** Failed checks before a server is marked down (2), passed checks before it is up again (1). */
  readonly fall?: number;
  readonly rise?: number;
}

export interface BackendState {
  readonly name: string;
  /** "UP", "DOWN", "MAINT", "UP 1/2" (going down), "DOWN 1/2" (going up)... */
  readonly status: string;
  /** The last check's result: "L7OK" (expected status), "L7STS" (another status), "L4CON" (connection refused), "L6RSP" (TLS failed)... */
  readonly checkStatus: string;
  /** The HTTP status of the last check, "" when it got none. */
  readonly checkCode: string;
  /**
   * A check is running at this moment. HAProxy then keeps the last check's status but reports
   * its code as 0, so `backendStates()` waits for a moment without one.
   */
  readonly checkInProgress: boolean;
  /** Connections forwarded to this server so far. */
  readonly connections: number;
}

/** The name the backend section has in the generated configuration. */
const BACKEND_SECTION = "backends";
/** How long one health check may take before HAProxy counts it failed. */
const CHECK_TIMEOUT_MS = 2_000;
const BINARY_CANDIDATES = ["/usr/sbin/haproxy", "/usr/local/sbin/haproxy"];

/** The HAProxy binary, or undefined when it is not installed. */
function haproxyBinary(): string | undefined {
  const found = BINARY_CANDIDATES.find((p) => existsSync(p));
  if (found) return found;
  const which = spawnSync("sh", ["-c", "command -v haproxy"], { encoding: "utf8" });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim() : undefined;
}

/** Why HAProxy cannot run here, or undefined when it can. */
export function haproxySkipReason(): string | undefined {
  const binary = haproxyBinary();
  if (!binary) return "haproxy is not installed (apt-get install -y haproxy; .ci/run does it)";
  const version = spawnSync(binary, ["-v"], { encoding: "utf8" });
  if (version.status !== 0) return `${binary} -v failed: ${(version.stderr || version.error?.message || "").trim()}`;
  return undefined;
}

export async function startHaproxy(options: HaproxyOptions): Promise<Haproxy> {
  const binary = haproxyBinary();
  if (!binary) throw new Error(haproxySkipReason());
  const directory = mkdtempSync(join(tmpdir(), "aps-gen-haproxy-"));
  const socket = join(directory, "admin.sock");
  const configFile = join(directory, "haproxy.cfg");
  const output: string[] = [];
  let child: ChildProcess | undefined;
  let stopped = false;

  const killOnExit = () => child?.kill("SIGKILL");
  process.once("exit", killOnExit);

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.removeListener("exit", killOnExit);
    const running = child;
    if (running && running.exitCode === null && running.signalCode === null) {
      const exited = new Promise<void>((done) => running.once("exit", () => done()));
      running.kill("SIGTERM");
      const timer = setTimeout(() => running.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(directory, { recursive: true, force: true });
  };

  const command = (text: string) => adminCommand(socket, text);
  const readStates = async () =>
    parseStats(await command("show stat"))
      .filter(
        (row) => row.pxname === BACKEND_SECTION && row.svname !== "BACKEND" && !(row.svname ?? "").endsWith("-any"),
      )
      .map(stateOf);
  // A check takes a few milliseconds of every interval; reading stats during one shows code 0
  // beside the previous status (seen on 2.6: "* L7OK" with code 0). Read again until no check
  // runs, for at most the check timeout; past it, the states say which check was still running.
  const backendStates = async () => {
    const deadline = Date.now() + CHECK_TIMEOUT_MS + 1_000;
    for (;;) {
      const states = await readStates();
      if (states.every((s) => !s.checkInProgress) || Date.now() > deadline) return states;
      await new Promise((wait) => setTimeout(wait, 5));
    }
  };

  try {
    let port = options.port ?? 0;
    for (let attempt = 1; ; attempt++) {
      if (!options.port) port = await freePort();
      writeFileSync(configFile, haproxyConfig(options, port, socket));
      output.length = 0;
      child = spawnWithParent(binary, ["-db", "-f", configFile]);
      child.stdout!.on("data", (c: Buffer) => output.push(c.toString()));
      child.stderr!.on("data", (c: Buffer) => output.push(c.toString()));
      const started = child;
      const outcome = await until(
        "HAProxy's admin socket to answer",
        async () => {
          if (started.exitCode !== null || started.signalCode !== null)
            return `haproxy exited (${started.signalCode ?? started.exitCode}) while starting`;
          return backendStates().then(
            () => "ready",
            () => undefined,
          );
        },
        10_000,
      );
      if (outcome === "ready") break;
      // Another process took the port between freePort() and the bind: try another one.
      if (!options.port && attempt < 3 && /cannot bind|address already in use/i.test(output.join(""))) continue;
      throw new Error(`${outcome}:\n${output.join("").trim()}`);
    }
    // Each server's first check done: states mean something from here on.
    await until(
      "HAProxy's first health check of every backend",
      async () => (await backendStates()).every((s) => s.checkStatus !== "" && s.checkStatus !== "INI"),
      10_000,
    );
    return {
      port,
      backendStates,
      waitForBackend: async (name, status, ms = 10_000) => {
        let last: BackendState | undefined;
        try {
          return await until(
            `backend ${name} to be ${status}`,
            async () => {
              last = (await backendStates()).find((s) => s.name === name);
              return last?.status === status && !last.checkInProgress ? last : undefined;
            },
            ms,
          );
        } catch (error) {
          throw new Error(`${(error as Error).message}; last seen: ${JSON.stringify(last)}`);
        }
      },
      command,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function haproxyConfig(options: HaproxyOptions, port: number, socket: string): string {
  const inter = options.checkIntervalMs ?? 200;
  const path = options.healthPath ?? "/readyz";
  const servers = options.backends.map((b, i) => `  server ${b.name ?? `b${i}`} ${b.host}:${b.port}`);
  const fallbacks = !options.fallbackToAll
    ? []
    : options.backends.map((b, i) => `  server ${b.name ?? `b${i}`}-any ${b.host}:${b.port} backup no-check`);
  return [
    "global",
    `  stats socket ${socket} mode 600 level admin`,
    // Server state changes on stderr, which start() keeps for its error messages.
    "  log stderr format raw local0 notice",
    "  maxconn 1000",
    "defaults",
    "  mode tcp",
    "  log global",
    "  timeout connect 2s",
    "  timeout client 60s",
    "  timeout server 60s",
    `  timeout check ${CHECK_TIMEOUT_MS}ms`,
    "frontend entry",
    `  bind 127.0.0.1:${port}`,
    `  default_backend ${BACKEND_SECTION}`,
    `backend ${BACKEND_SECTION}`,
    `  balance ${options.balance ?? "roundrobin"}`,
    ...(!options.fallbackToAll ? [] : ["  option allbackups", "  option redispatch", "  retries 3"]),
    "  option httpchk",
    `  http-check send meth GET uri ${path} ver HTTP/1.1 hdr Host 127.0.0.1`,
    "  http-check expect status 200",
    `  default-server check check-ssl verify none inter ${inter} fastinter ${inter} downinter ${inter} fall ${options.fall ?? 2} rise ${options.rise ?? 1}`,
    ...servers,
    ...fallbacks,
    "",
  ].join("\n");
}

/**
 * Spawns `binary` so that it dies with this process: through `setpriv --pdeathsig SIGKILL`,
 * which asks the kernel to kill it when its parent goes (a test worker killed with SIGKILL runs
 * no exit handler). Without setpriv, the exit handler and stop() are all there is.
 */
function spawnWithParent(binary: string, args: readonly string[]): ChildProcess {
  const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p));
  const [program, ...rest] = setpriv ? [setpriv, "--pdeathsig", "SIGKILL", "--", binary, ...args] : [binary, ...args];
  return spawn(program!, rest, { stdio: ["ignore", "pipe", "pipe"] });
}

/** One command on the admin socket: HAProxy answers and closes (non-interactive mode). */
function adminCommand(socket: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const connection = createConnection(socket);
    connection.setTimeout(5_000, () => connection.destroy(new Error(`no answer to "${text}" on ${socket}`)));
    connection.on("connect", () => connection.write(`${text}\n`));
    connection.on("data", (c: Buffer) => chunks.push(c));
    connection.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    connection.on("error", reject);
  });
}

/** `show stat` CSV: a header line "# pxname,svname,...", then one line per proxy and server. */
function parseStats(csv: string): Record<string, string>[] {
  const lines = csv.split("\n").filter((l) => l.trim() !== "");
  const header = lines[0]?.replace(/^# /, "").split(",") ?? [];
  if (!header.includes("svname")) throw new Error(`not a show stat answer: ${csv.slice(0, 200)}`);
  return lines.slice(1).map((line) => {
    const cells = line.split(",");
    return Object.fromEntries(header.map((name, i) => [name, cells[i] ?? ""]));
  });
}

function stateOf(row: Record<string, string>): BackendState {
  return {
    name: row.svname!,
    status: row.status!,
    checkStatus: (row.check_status ?? "").replace(/^\* /, ""),
    checkCode: row.check_code ?? "",
    checkInProgress: (row.check_status ?? "").startsWith("* "),
    connections: Number(row.stot ?? 0),
  };
}
