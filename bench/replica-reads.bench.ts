// Reads from a streaming replica (runtime/controller/store/replica-reads.ts): what the fence
// costs the primary, and how many reads the replica takes. Run:
//   npm run bench:replica-reads [-- --seconds 8 --connections 32 --writers 4 --workers 1]
//
// A real replica of the local PostgreSQL (test/helpers/pg-replica.ts: pg_basebackup, a second
// server on another port), one `aps-gen serve --read-database-url` process from the sources
// (bin/aps-gen.js, as `npm start` runs it), 1,000 notes, and wrk GETting them in turn over HTTPS
// with --connections connections. Three turns:
// - primary only: the same server without --read-database-url (reads/s to compare with);
// - reads only, with the replica: reads/s, fence queries/s (aps_read_fences_total), replica share;
// - reads while --writers loops configure notes as fast as they are answered: the same, plus
//   writes/s; each write moves the primary's WAL position, so reads that arrive right after a
//   write find the replica behind their fence and go to the primary.
// Informational: exit 0 unless the setup fails.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { get } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import postgres from "postgres";
import { pgReplicaSkipReason, startPgReplica } from "../test/helpers/pg-replica.ts";
import { repoDir } from "./child-process.ts";
import { startLogged, stopChild } from "./installed-cli.ts";
import { generator, requestsPerSecond } from "./load-generator.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "8" },
    connections: { type: "string", default: "32" },
    writers: { type: "string", default: "4" },
    workers: { type: "string", default: "1" },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const writers = Number(values.writers);
const serverUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const NOTE = "http://notes.example/types/note/1.0";

const skip = await pgReplicaSkipReason({ primaryUrl: serverUrl });
if (skip) {
  console.log(`no replica can be made here: ${skip}`);
  process.exit(0);
}

const work = mkdtempSync(join(tmpdir(), "aps-bench-replica-"));
const dbName = `bench_replica_${process.pid}`;
const admin = postgres(serverUrl, { onnotice: () => {} });
await admin.unsafe(`create database ${dbName}`);
const databaseUrl = Object.assign(new URL(serverUrl), { pathname: `/${dbName}` }).toString();
const replica = await startPgReplica({ primaryUrl: serverUrl });
const replicaUrl = Object.assign(new URL(databaseUrl), { port: String(replica.port) }).toString();
const replicaName = `127.0.0.1:${replica.port}`;
const children: ChildProcess[] = [];

async function serve(
  data: string,
  extra: string[],
): Promise<{ url: string; ca: string; token: string; child: ChildProcess }> {
  const log = join(work, `${data}.log`);
  const dir = join(work, data);
  const child = await startLogged(
    [
      join(repoDir, "bin/aps-gen.js"),
      "serve",
      "--types",
      "test/fixtures/controller/notes",
      "--port",
      "0",
      "--data",
      dir,
      "--database-url",
      databaseUrl,
      "--workers",
      values.workers!,
      ...extra,
    ],
    /admin token in/,
    log,
    { DATABASE_URL: "" },
  );
  children.push(child);
  const url = /controller on (https:\/\/\S+)/.exec(readFileSync(log, "utf8"))![1]!;
  return {
    url,
    ca: readFileSync(join(dir, "tls/ca.crt"), "utf8"),
    token: readFileSync(join(dir, "admin.token"), "utf8").trim(),
    child,
  };
}

const primaryStats = postgres(serverUrl, { max: 1, onnotice: () => {} });

/**
 * What a turn is measured by: the read metrics of /metrics, the GETs answered, and the
 * transactions of the primary's database (pg_stat_database: every statement outside a
 * transaction is one). Backends report their statistics when they go idle, at most about 10 s
 * late (PostgreSQL 15), so the figures after a turn are read once the server has been idle that long.
 */
interface Figures {
  readonly primary: number;
  readonly replica: number;
  readonly fences: number;
  readonly behind: number;
  readonly gets: number;
  readonly primaryTransactions: number;
  readonly at: number;
}

async function figures(server: { url: string; ca: string }): Promise<Figures> {
  // A connection of its own: a kept-alive one idle through a turn may have been closed by the server.
  const text = await new Promise<string>((resolve, reject) => {
    get(new URL("/metrics", server.url), { ca: server.ca, agent: false }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += String(d)));
      res.on("end", () => resolve(body));
    }).on("error", reject);
  });
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
  const name = replicaName.replace(/\./g, "\\.");
  const gets = text
    .split("\n")
    .filter(
      (l) =>
        l.startsWith("aps_http_requests_total{") &&
        l.includes('method="GET"') &&
        l.includes('route="/aps/2/resources/:id"'),
    )
    .reduce((sum, l) => sum + Number(l.split(" ").at(-1)), 0);
  await primaryStats`select pg_stat_clear_snapshot()`;
  const [stats] =
    await primaryStats`select (xact_commit + xact_rollback)::float8 as n from pg_stat_database where datname = ${dbName}`;
  return {
    primary: value(/^aps_reads_total\{target="primary"\} (\S+)$/m),
    replica: value(new RegExp(`^aps_reads_total\\{target="${name}"\\} (\\S+)$`, "m")),
    fences: value(/^aps_read_fences_total (\S+)$/m),
    behind: value(new RegExp(`^aps_read_replica_skips_total\\{replica="${name}",reason="behind"\\} (\\S+)$`, "m")),
    gets,
    primaryTransactions: Number(stats!.n),
    at: Date.now(),
  };
}

/** The figures once the statistics of a turn are in (see {@link Figures}). */
async function settledFigures(server: { url: string; ca: string }): Promise<Figures> {
  await new Promise((r) => setTimeout(r, 11_000));
  return figures(server);
}

/** One line of figures for a turn: from `before` to `after`, wrk's rate beside. */
function report(label: string, rate: number, before: Figures, after: Figures, extra = ""): void {
  const gets = after.gets - before.gets;
  const transactions = after.primaryTransactions - before.primaryTransactions;
  const reads = after.primary + after.replica - before.primary - before.replica;
  const fences = after.fences - before.fences;
  const parts = [
    `${rate.toFixed(0)} GETs/s (wrk)`,
    `primary: ${(transactions / Math.max(1, gets)).toFixed(2)} transactions per GET`,
  ];
  if (reads > 0) {
    parts.push(
      `${(gets / Math.max(1, fences)).toFixed(1)} GETs per fence query`,
      `replica answered ${((100 * (after.replica - before.replica)) / reads).toFixed(1)}% of reads`,
      `behind its fence ${(after.behind - before.behind).toFixed(0)} times`,
    );
  }
  console.log(`${label.padEnd(34)} ${parts.join(", ")}${extra}`);
}

/** The writers' loops (plain JavaScript: a worker thread of its own). Each configures its own notes, one request after the other, until told to stop; then it posts its counts. */
const WRITERS = `
const { parentPort, workerData } = require("node:worker_threads");
const { Agent, request } = require("node:https");
const { url, ca, token, ids, writers } = workerData;
const agent = new Agent({ keepAlive: true });
let stop = false, writes = 0;
const failures = [];
parentPort.on("message", () => { stop = true; });
const put = (id, title) => new Promise((resolve) => {
  const body = JSON.stringify({ title });
  const req = request(new URL("/aps/2/resources/" + id, url), { method: "PUT", ca, agent, headers: { "aps-token": token, "content-type": "application/json" } }, (res) => {
    let text = ""; res.on("data", (d) => (text += d)); res.on("end", () => resolve({ status: res.statusCode, text }));
  });
  req.on("error", (e) => resolve({ status: 0, text: e.message }));
  req.end(body);
});
const loop = async (w) => {
  for (let i = 0; !stop; i++) {
    const r = await put(ids[(w * 97 + i) % ids.length], "w" + w + "-" + i);
    if (r.status === 200) writes++; else failures.push(r.status + " " + r.text.slice(0, 200));
  }
};
Promise.all(Array.from({ length: writers }, (_, w) => loop(w))).then(() => parentPort.postMessage({ writes, failures }));
`;

try {
  // The first server migrates the database and makes the notes' owner (the provider).
  const first = await serve("node", []);
  const sql = postgres(databaseUrl, { onnotice: () => {} });
  const [root] = await sql`select id, owner_path from resources where owner_path = '/' || id || '/' limit 1`;
  const ids = (
    await sql`insert into resources (id, type_id, status, revision, created, modified, owner_account, owner_path, body)
      select gen_random_uuid(), ${NOTE}, 'aps:ready', 1, now(), now(), ${root!.id}, ${root!.owner_path}, jsonb_build_object('title', 'note ' || i, 'size', i)
      from generate_series(1, 1000) as i returning id::text`
  ).map((r) => r.id as string);
  await sql.end();
  const paths = ids.map((id) => `/aps/2/resources/${id}`);
  const load = (server: { url: string; ca: string; token: string }) => ({
    url: `${server.url}/aps/2/resources/${ids[0]}`,
    ca: server.ca,
    connections,
    seconds,
    headers: { "aps-token": server.token },
    paths,
    work,
  });

  console.log(
    `load: ${generator}, ${connections} connections, ${seconds} s per turn (after 2 s of warm-up); serve --workers ${values.workers}; 1,000 notes; replica ${replicaName}`,
  );
  let before = await figures(first);
  const baseline = requestsPerSecond(load(first));
  report("primary only", baseline, before, await settledFigures(first));
  await stopChild(first.child);

  const server = await serve("node", ["--read-database-url", replicaUrl]);
  await replica.waitForReplay();
  before = await figures(server);
  const readsOnly = requestsPerSecond(load(server));
  report("with the replica", readsOnly, before, await settledFigures(server));

  // The same reads while writers configure notes (each its own notes: no claim waits between
  // them). In a worker thread: the load generator's turn blocks this thread (spawnSync).
  before = await figures(server);
  const writing = new Worker(WRITERS, {
    eval: true,
    workerData: { url: server.url, ca: server.ca, token: server.token, ids, writers },
  });
  const mixed = requestsPerSecond(load(server));
  writing.postMessage("stop");
  const { writes, failures } = await new Promise<{ writes: number; failures: string[] }>((resolve) =>
    writing.once("message", resolve),
  );
  await writing.terminate();
  const writeRate = writes / ((Date.now() - before.at) / 1000);
  if (failures.length) console.log(`${failures.length} writes failed, the first: ${failures[0]}`);
  // The writes' own transactions are in the primary's count: per GET it says less here.
  report(
    `with the replica + ${writers} writers`,
    mixed,
    before,
    await settledFigures(server),
    `; ${writeRate.toFixed(0)} writes/s (their transactions are in the primary's count)`,
  );
  await stopChild(server.child);
} finally {
  for (const child of children) await stopChild(child);
  await replica.stop();
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  await primaryStats.end();
  rmSync(work, { recursive: true, force: true });
}
