// Where the machine's CPU goes during a measured turn, per request: the server under test (with
// the processes it forked: cluster workers), the other servers it calls, PostgreSQL (every
// `postgres` process) and the load generator. On a machine whose cores are all busy, throughput
// is the cores divided by the sum of these, so a ratio against a baseline is explained by where
// the two sums differ. Linux only (/proc); elsewhere the split is empty.
import { existsSync, readdirSync, readFileSync } from "node:fs";

/** CPU time of one process in clock ticks (user + system), and its parent; undefined when gone. */
function processTicks(
  pid: string,
): { ticks: number; parent: string; name: string; reapedChildren: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The name is in parentheses and may hold spaces; the fields after it are space-separated.
    const close = stat.lastIndexOf(")");
    const name = stat.slice(stat.indexOf("(") + 1, close);
    const f = stat.slice(close + 2).split(" ");
    return { ticks: Number(f[11]) + Number(f[12]), parent: f[1]!, name, reapedChildren: Number(f[13]) + Number(f[14]) };
  } catch {
    return undefined;
  }
}

type Snapshot = Map<string, number>;

/**
 * Whether a `postgres` process works for `database`: its client backends name their database in
 * their title ("postgres: 15/main: user db 127.0.0.1(port) idle"); background processes (WAL
 * writer, checkpointer, ...) serve every database and count. Other databases' backends (other
 * work on the machine) do not.
 */
function servesDatabase(pid: string, database: string | undefined): boolean {
  if (database === undefined) return true;
  let title = "";
  try {
    title = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return false;
  }
  const backend = /^postgres: \S+: \S+ (\S+) \S+\(\d+\)/.exec(title);
  return !backend || backend[1] === database;
}

/** Ticks per named group: each named pid with its descendants, `postgres` (of `database`), and `load generator` (children this process has waited for). */
function snapshot(named: Readonly<Record<string, number | undefined>>, database: string | undefined): Snapshot {
  const all = new Map<string, { ticks: number; parent: string; name: string }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const p = processTicks(entry);
    if (p) all.set(entry, p);
  }
  const groupOf = (pid: string): string | undefined => {
    for (
      let at: string | undefined = pid, depth = 0;
      at && at !== "0" && depth < 8;
      at = all.get(at)?.parent, depth++
    ) {
      for (const [group, root] of Object.entries(named)) if (root !== undefined && String(root) === at) return group;
    }
    return undefined;
  };
  const out: Snapshot = new Map();
  for (const [pid, p] of all) {
    const group = p.name === "postgres" ? (servesDatabase(pid, database) ? "postgres" : undefined) : groupOf(pid);
    if (group) out.set(group, (out.get(group) ?? 0) + p.ticks);
  }
  // The load generator runs to its end inside spawnSync: its time shows in this process's
  // reaped-children counters once it has been waited for.
  out.set("load generator", processTicks(String(process.pid))?.reapedChildren ?? 0);
  return out;
}

/** Measures the CPU of the named processes, PostgreSQL and the load generator over one turn. */
export class CpuMeter {
  private before: Snapshot | undefined;
  private last: Map<string, number> = new Map();
  constructor(
    private readonly named: () => Readonly<Record<string, number | undefined>>,
    /** The benchmark's database: PostgreSQL's backends of other databases are left out. */
    private readonly database?: string,
  ) {}

  static readonly available = existsSync("/proc/self/stat");

  start(): void {
    this.before = CpuMeter.available ? snapshot(this.named(), this.database) : undefined;
  }

  /** Ends the turn: microseconds of CPU per request, per group. */
  stop(requests: number): void {
    if (!this.before || requests <= 0) return;
    const after = snapshot(this.named(), this.database);
    const tickMicros = 1_000_000 / 100; // USER_HZ is 100 on Linux.
    this.last = new Map(
      [...after].map(([group, ticks]) => [group, ((ticks - (this.before!.get(group) ?? 0)) * tickMicros) / requests]),
    );
  }

  /** Microseconds of CPU per request of the last turn: one group's, or all groups' together. */
  micros(group?: string): number {
    if (group !== undefined) return this.last.get(group) ?? 0;
    return [...this.last.values()].reduce((s, us) => s + us, 0);
  }

  /** The last turn's split, e.g. "controller 412 + postgres 230 + connector 150 + load generator 30 = 822 µs/request". */
  describe(): string {
    if (this.last.size === 0) return "";
    const parts = [...this.last].filter(([, us]) => us > 0).sort((a, b) => b[1] - a[1]);
    const sum = parts.reduce((s, [, us]) => s + us, 0);
    return `${parts.map(([g, us]) => `${g} ${us.toFixed(0)}`).join(" + ")} = ${sum.toFixed(0)} µs of CPU per request`;
  }
}

/**
 * What a throughput target leaves the server under test, when every core is busy: throughput is
 * the cores divided by the CPU per request, so reaching `target` × the baseline's throughput
 * needs a total of at most the baseline's total / target; what the server may use of it is that
 * total less what the other processes (database, connector, load generator) took per request.
 */
export function serverBudget(ours: CpuMeter, baseline: CpuMeter, target: number): string {
  if (ours.micros() === 0 || baseline.micros() === 0) return "";
  const others = ours.micros() - ours.micros("server");
  const allowed = baseline.micros() / target - others;
  return `at ${Math.round(target * 100)}% the server may use ${Math.max(0, allowed).toFixed(0)} µs per request (the baseline's ${baseline.micros().toFixed(0)} / ${target} less the others' ${others.toFixed(0)}); it uses ${ours.micros("server").toFixed(0)}, the baseline's server ${baseline.micros("server").toFixed(0)}`;
}
