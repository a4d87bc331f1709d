// Controller benchmark, run the way an operator runs the controller: the compiled CLI (dist/, as
// npm installs it: the bench builds it first), the default log level with its line per request
// written to a file, HTTPS, PostgreSQL, and the load from a separate process (wrk when it is on
// the PATH, else the autocannon CLI). Run: npm run bench:controller [-- --seconds 6 --rounds 3
// --resources 100000 --connections 32]
//
// - GET one resource by a customer's token, one worker, against a bare Hono + postgres.js server
//   doing the same primary-key select over HTTPS on the same database (bench/baseline-server.ts);
//   then `serve --workers 2` against `--workers 1`. The three servers take turns, round after
//   round, and each ratio is the median of the rounds' ratios: on a shared machine the load of
//   everything else drifts during a run, and a drift then hits both sides of a ratio alike.
// - `implementing(<type>),eq(size,500),limit(0,10)` over N resources of one type, by the
//   provider's administrator and by a customer, sequential requests on one kept-alive connection:
//   the latency of the service, not of a queue.
//
// Targets (issue 29, this 2-core machine): GET ≥ 90% of the baseline; --workers 2 ≥ 1.5× one;
// the filtered list < 3 ms median for both callers. Informational: exit 0 unless the setup fails.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { httpsCall, repoDir, runCapture } from "./child-process.ts";
import { installedCli, startLogged, stopChild } from "./installed-cli.ts";
import { generator, requestsPerSecond } from "./load-generator.ts";
import { CpuMeter, serverBudget } from "./process-cpu.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "6" },
    rounds: { type: "string", default: "3" },
    resources: { type: "string", default: "100000" },
    connections: { type: "string", default: "32" },
  },
});
const seconds = Number(values.seconds);
const rounds = Math.max(1, Number(values.rounds));
const total = Number(values.resources);
const connections = Number(values.connections);
const serverUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const NOTE = "http://notes.example/types/note/1.0";
const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";

const work = mkdtempSync(join(tmpdir(), "aps-bench-"));
const cli = installedCli(work);

const dbName = `aps_bench_${process.pid}`;
const admin = postgres(serverUrl, { onnotice: () => {} });
await admin.unsafe(`create database ${dbName}`);
const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${dbName}` }).toString();
const dataDir = join(work, "data");
const port = 18000 + (process.pid % 1000);
const base = `https://127.0.0.1:${port}`;
const children: ChildProcess[] = [];

const start = async (args: string[], ready: RegExp, logName: string) => {
  const child = await startLogged(args, ready, join(work, logName));
  children.push(child);
  return child;
};
const stop = stopChild;

const serveArgs = (workers: number) => [
  cli,
  "serve",
  "--types",
  "test/fixtures/controller/notes",
  "--port",
  String(port),
  "--data",
  dataDir,
  "--database-url",
  dbUrl,
  "--workers",
  String(workers),
];

const load = (url: string, headers: Record<string, string>, ca: string, server: ChildProcess) => {
  meter = new CpuMeter(() => ({ server: server.pid }), dbName);
  return requestsPerSecond({ url, headers, ca, connections, seconds, work }, meter);
};
let meter: CpuMeter | undefined;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  // The first start migrates and makes the keys; then a customer and its notes.
  let controller = await start(serveArgs(1), /controller on/, "serve-setup.log");
  const ca = readFileSync(join(dataDir, "tls/ca.crt"), "utf8");
  const adminToken = readFileSync(join(dataDir, "admin.token"), "utf8").trim();
  const account = JSON.parse(
    (
      await httpsCall(
        base,
        ca,
        "POST",
        "/aps/2/resources",
        { "aps-token": adminToken },
        JSON.stringify({ aps: { type: ACCOUNT }, companyName: "Bench", addressPostal: {} }),
      )
    ).text,
  );
  const token = (await runCapture([cli, "token", "--account", account.aps.id, "--data", dataDir])).trim();
  const db = postgres(dbUrl, { onnotice: () => {} });
  const [owner] = await db`select owner_path from resources where id = ${account.aps.id}`;
  process.stdout.write(`seeding ${total} notes ... `);
  const seeded = performance.now();
  await db`insert into resources (id, type_id, status, revision, created, modified, owner_account, owner_path, body)
    select gen_random_uuid(), ${NOTE}, 'aps:ready', 1, now(), now(), ${account.aps.id}, ${owner!.owner_path},
           jsonb_build_object('title', 'note ' || i, 'size', i % 1000, 'done', i % 2 = 0, 'score', i / 7.0)
    from generate_series(1, ${total}) as i`;
  await db`vacuum analyze resources`;
  console.log(`${((performance.now() - seeded) / 1000).toFixed(1)} s`);
  const [one] =
    await db`select id from resources where type_id = ${NOTE} order by seq limit 1 offset ${Math.floor(total / 2)}`;

  // The filtered list, by both callers. The first one asks for the property's index; it is made in the background.
  const query = `/aps/2/resources?implementing(${encodeURIComponent(NOTE)}),eq(size,500),limit(0,10)`;
  const first = JSON.parse((await httpsCall(base, ca, "GET", query, { "aps-token": token })).text);
  if (!Array.isArray(first) || first.length !== 10)
    throw new Error(`the filtered list returned ${JSON.stringify(first).slice(0, 200)}`);
  for (
    let i = 0;
    i < 600 &&
    (
      await db`select 1 from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname like 'resources_prop_%' and i.indisvalid`
    ).length === 0;
    i++
  )
    await new Promise((r) => setTimeout(r, 100));
  await db`analyze resources`;
  await db.end();
  const lists: string[] = [];
  for (const [who, t] of [
    ["provider's administrator", adminToken],
    ["customer", token],
  ] as const) {
    const latencies: number[] = [];
    for (let i = 0; i < 320; i++) {
      const t0 = performance.now();
      await httpsCall(base, ca, "GET", query, { "aps-token": t });
      if (i >= 20) latencies.push(performance.now() - t0);
    }
    latencies.sort((a, b) => a - b);
    const m = median(latencies);
    lists.push(
      `  ${who.padEnd(25)} median ${m.toFixed(2)} ms, p95 ${latencies[Math.floor(latencies.length * 0.95)]!.toFixed(2)} ms (target < 3 ms) ${m < 3 ? "✓" : "✗"}`,
    );
  }
  await stop(controller);

  const baseline = [
    join(repoDir, "node_modules/tsx/dist/cli.mjs"),
    "bench/baseline-server.ts",
    dbUrl,
    join(dataDir, "tls/server.crt"),
    join(dataDir, "tls/server.key"),
    String(port),
  ];
  const get = `/aps/2/resources/${one!.id}`;
  const rows: { ours1: number; bare: number; ours2: number }[] = [];
  let splits: CpuMeter[] = [];
  for (let r = 0; r < rounds; r++) {
    controller = await start(serveArgs(1), /controller on/, `serve-1-${r}.log`);
    const ours1 = load(`${base}${get}`, { "aps-token": token }, ca, controller);
    const split1 = meter!;
    await stop(controller);
    const bare = await start(baseline, /ready/, `baseline-${r}.log`);
    const b = load(`${base}/resources/${one!.id}`, {}, ca, bare);
    const splitBare = meter!;
    await stop(bare);
    controller = await start(serveArgs(2), /controller on/, `serve-2-${r}.log`);
    const ours2 = load(`${base}${get}`, { "aps-token": token }, ca, controller);
    const split2 = meter!;
    await stop(controller);
    splits = [split1, splitBare, split2];
    rows.push({ ours1, bare: b, ours2 });
    console.log(
      `round ${r + 1}: controller ${ours1.toFixed(0)} req/s, baseline ${b.toFixed(0)}, --workers 2 ${ours2.toFixed(0)}  (${((100 * ours1) / b).toFixed(0)}%, ${(ours2 / ours1).toFixed(2)}×)`,
    );
  }
  const getRatio = median(rows.map((x) => x.ours1 / x.bare));
  const workerRatio = median(rows.map((x) => x.ours2 / x.ours1));
  console.log(
    `\nGET one resource, ${connections} connections, ${seconds} s per turn, ${rounds} rounds, ${total} resources, default log level, ${generator}:`,
  );
  console.log(
    `  one worker: ${(getRatio * 100).toFixed(0)}% of the baseline (median of rounds; target ≥ 90%) ${getRatio >= 0.9 ? "✓" : "✗"}`,
  );
  console.log(`  --workers 2: ${workerRatio.toFixed(2)}× one worker (target ≥ 1.5×) ${workerRatio >= 1.5 ? "✓" : "✗"}`);
  if (CpuMeter.available) {
    console.log("  CPU per request in the last round (all cores busy: throughput is the cores divided by the sum):");
    for (const [i, name] of ["one worker", "baseline", "--workers 2"].entries())
      console.log(`    ${name}: ${splits[i]!.describe()}`);
    console.log(`    ${serverBudget(splits[0]!, splits[1]!, 0.9)}`);
    // Two workers: at most the cores over the one worker's CPU per request, whatever the work is spread over.
    const cores = availableParallelism();
    console.log(
      `    --workers 2 at most ${((cores * 1e6) / splits[0]!.micros() / rows.at(-1)!.ours1).toFixed(2)}× one worker on ${cores} cores if a request kept costing what it costs with one worker (${splits[0]!.micros().toFixed(0)} µs of CPU in all)`,
    );
  }
  console.log(`\neq(size,500) + limit(0,10) over ${total} notes, 300 sequential requests over HTTPS:`);
  console.log(lists.join("\n"));
} finally {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await new Promise((r) => setTimeout(r, 500));
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  rmSync(work, { recursive: true, force: true });
}
