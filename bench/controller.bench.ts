// Controller benchmark: GET one resource against a bare Hono + postgres.js primary-key select
// on the same database in the same run, and the latency of an `eq` filter with limit(0,10)
// over 100,000 resources. Run: npm run bench:controller [-- --seconds 8 --resources 100000]
//
// Both servers run as child processes on PostgreSQL ($DATABASE_URL, default the local test
// server), each in a database of its own that is dropped at the end. The numbers are
// informational: the process exits 0 unless the setup itself fails.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import postgres from "postgres";
import { httpsCall, runCapture, startChild } from "./child-process.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "8" }, resources: { type: "string", default: "100000" }, connections: { type: "string", default: "50" } } });
const seconds = Number(values.seconds);
const total = Number(values.resources);
const connections = Number(values.connections);
const serverUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const NOTE = "http://notes.example/types/note/1.0";
const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";

const dbName = `aps_bench_${process.pid}`;
const admin = postgres(serverUrl, { onnotice: () => {} });
await admin.unsafe(`create database ${dbName}`);
const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${dbName}` }).toString();
const dataDir = mkdtempSync(join(tmpdir(), "aps-bench-"));
const children: ChildProcess[] = [];
const call = async (base: string, ca: string, method: string, path: string, token: string, body?: string) => (await httpsCall(base, ca, method, path, { "aps-token": token }, body)).text;

try {
  const port = 18000 + (process.pid % 1000);
  const { child: controller } = await startChild(["bin/aps-gen.js", "serve", "--types", "test/fixtures/controller/notes", "--port", String(port), "--data", dataDir, "--database-url", dbUrl], /controller on/, { LOG_LEVEL: "warn" });
  children.push(controller);
  const ca = readFileSync(join(dataDir, "tls/ca.crt"), "utf8");
  const adminToken = readFileSync(join(dataDir, "admin.token"), "utf8").trim();
  const base = `https://127.0.0.1:${port}`;

  // A customer account through the API, then its notes straight into the table (the API would take minutes).
  const account = JSON.parse(await call(base, ca, "POST", "/aps/2/resources", adminToken, JSON.stringify({ aps: { type: ACCOUNT }, companyName: "Bench", addressPostal: {} })));
  const token = (await runCapture(["bin/aps-gen.js", "token", "--account", account.aps.id, "--data", dataDir])).trim();
  const db = postgres(dbUrl, { onnotice: () => {} });
  const [owner] = await db`select owner_path from resources where id = ${account.aps.id}`;
  process.stderr.write(`seeding ${total} resources ... `);
  const seedStart = performance.now();
  await db`insert into resources (id, type_id, status, revision, created, modified, owner_account, owner_path, body)
    select gen_random_uuid(), ${NOTE}, 'aps:ready', 1, now(), now(), ${account.aps.id}, ${owner!.owner_path},
           jsonb_build_object('title', 'note ' || i, 'size', i % 1000, 'done', i % 2 = 0, 'score', i / 7.0)
    from generate_series(1, ${total}) as i`;
  await db`analyze resources`;
  process.stderr.write(`${((performance.now() - seedStart) / 1000).toFixed(1)} s\n`);
  const [one] = await db`select id from resources where type_id = ${NOTE} order by seq limit 1 offset ${Math.floor(total / 2)}`;
  await db.end();

  const baselinePort = port + 1;
  children.push((await startChild(["--import", "tsx", "bench/baseline-server.ts", dbUrl, join(dataDir, "tls/server.crt"), join(dataDir, "tls/server.key"), String(baselinePort)], /ready/)).child);

  const load = async (url: string, headers: Record<string, string>) => {
    await autocannon({ url, connections, duration: 2, headers, tlsOptions: { ca } }); // warm-up
    return autocannon({ url, connections, duration: seconds, headers, tlsOptions: { ca } });
  };
  const ours = await load(`${base}/aps/2/resources/${one!.id}`, { "aps-token": token });
  const bare = await load(`https://127.0.0.1:${baselinePort}/resources/${one!.id}`, {});

  // Filtered list: sequential requests, so the latency is the service's, not the queue's.
  const query = `/aps/2/resources?implementing(${encodeURIComponent(NOTE)}),eq(size,500),limit(0,10)`;
  const check = JSON.parse(await call(base, ca, "GET", query, token));
  if (!Array.isArray(check) || check.length !== 10) throw new Error(`the filtered list returned ${JSON.stringify(check).slice(0, 200)}`);
  const latencies: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now();
    await call(base, ca, "GET", query, token);
    if (i >= 20) latencies.push(performance.now() - t0);
  }
  latencies.sort((a, b) => a - b);
  const median = latencies[Math.floor(latencies.length / 2)]!;
  const p95 = latencies[Math.floor(latencies.length * 0.95)]!;

  const ratio = ours.requests.average / bare.requests.average;
  console.log(`\nGET one resource, ${connections} connections, ${seconds} s each, PostgreSQL, ${total} resources`);
  console.log("server                                   req/s    p50 ms  p99 ms  errors/non-2xx");
  console.log(`aps-gen controller (token, roles, view) ${ours.requests.average.toFixed(0).padStart(7)}  ${String(ours.latency.p50).padStart(6)}  ${String(ours.latency.p99).padStart(6)}  ${ours.errors}/${ours.non2xx}`);
  console.log(`baseline: Hono + postgres.js PK select  ${bare.requests.average.toFixed(0).padStart(7)}  ${String(bare.latency.p50).padStart(6)}  ${String(bare.latency.p99).padStart(6)}  ${bare.errors}/${bare.non2xx}`);
  console.log(`ratio: ${(ratio * 100).toFixed(0)}% of the baseline (target ≥ 60%) ${ratio >= 0.6 ? "✓" : "✗"}`);
  console.log(`\neq filter + limit(0,10) over ${total} resources, 280 sequential requests over HTTPS:`);
  console.log(`median ${median.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms (target median < 10 ms) ${median < 10 ? "✓" : "✗"}`);
} finally {
  for (const c of children) c.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 500));
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  rmSync(dataDir, { recursive: true, force: true });
}
