// Provisioning benchmark: POST /aps/2/resources of an application type through the controller
// (token, validation, roles, forwarding over mutual TLS to a local connector, storing the
// merged resource) against a baseline in the same run: bare Hono that calls the same connector
// and inserts one row. Run: npm run bench:provision [-- --seconds 5 --rounds 3 --connections 20]
//
// The controller runs as an operator runs it: dist's CLI (built first), one worker, the default
// log level with its output in a file; the load comes from a process of its own (wrk, else the
// autocannon CLI: bench/load-generator.ts). Target (issue 29): ≥ 75% of the baseline.
//
// The servers take turns, round after round (controller, baseline, same-table baseline), and the
// ratio is the median of the rounds' ratios: on a shared 2-core machine the load of everything
// else drifts during a run, and a drift then hits both sides of a ratio alike.
//
// Everything runs as child processes on PostgreSQL ($DATABASE_URL, default the local test
// server), in a database of its own that is dropped at the end. Informational: exit 0.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { httpsCall, runCapture } from "./child-process.ts";
import { installedCli, startLogged } from "./installed-cli.ts";
import { generator, requestsPerSecond } from "./load-generator.ts";
import { CpuMeter, serverBudget } from "./process-cpu.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "20" },
  },
});
const seconds = Number(values.seconds);
const rounds = Math.max(1, Number(values.rounds));
const connections = Number(values.connections);
const serverUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const ITEM = "http://bench.example/types/item/1.0";

const dbName = `aps_provision_${process.pid}`;
const admin = postgres(serverUrl, { onnotice: () => {} });
await admin.unsafe(`create database ${dbName}`);
const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${dbName}` }).toString();
const dir = mkdtempSync(join(tmpdir(), "aps-provision-"));
const dataDir = join(dir, "data");
const children: ChildProcess[] = [];

try {
  const port = 19000 + (process.pid % 500);
  const cli = installedCli(dir);
  const controller = await startLogged(
    [
      ...(process.env.BENCH_PROFILE ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_PROFILE] : []),
      cli,
      "serve",
      "--workers",
      "1",
      "--types",
      "bench/fixtures/provision-app",
      "--port",
      String(port),
      "--data",
      dataDir,
      "--database-url",
      dbUrl,
    ],
    /admin token in/,
    join(dir, "serve.log"),
  );
  children.push(controller);
  // Every server writes its output to a file of its own: piped into this process, a line per
  // request would cost this process CPU on the cores the servers share.
  const connectorLog = join(dir, "connector.log");
  const connectorProcess = await startLogged(
    [
      ...(process.env.BENCH_PROFILE
        ? ["--cpu-prof", "--cpu-prof-dir", join(process.env.BENCH_PROFILE, "connector")]
        : []),
      "--import",
      "tsx",
      "bench/provision-connector.ts",
      join(dir, "endpoint"),
      join(dir, "credentials"),
    ],
    /ready (\S+) (\S+)/,
    connectorLog,
  );
  children.push(connectorProcess);
  const [, endpoint, endpointCaPath] = readFileSync(connectorLog, "utf8").match(/ready (\S+) (\S+)/)!;
  const ca = readFileSync(join(dataDir, "tls/ca.crt"), "utf8");
  const base = `https://127.0.0.1:${port}`;
  const adminToken = readFileSync(join(dataDir, "admin.token"), "utf8").trim();
  const headers = { "aps-token": adminToken };
  const packages = JSON.parse((await httpsCall(base, ca, "GET", "/aps/2/packages", headers)).text) as {
    id: string;
    name: string;
  }[];
  const install = await httpsCall(
    base,
    ca,
    "POST",
    "/aps/2/instances",
    headers,
    JSON.stringify({ package: packages[0]!.id, endpoint, endpointCa: readFileSync(endpointCaPath!, "utf8") }),
  );
  if (install.status !== 201) throw new Error(`install failed: ${install.text}`);
  const instanceId = (JSON.parse(install.text) as { id: string }).id;
  const account = JSON.parse(
    (
      await httpsCall(
        base,
        ca,
        "POST",
        "/aps/2/resources",
        headers,
        JSON.stringify({
          aps: { type: "http://aps-standard.org/types/core/account/1.0" },
          companyName: "Bench",
          addressPostal: {},
        }),
      )
    ).text,
  ) as { aps: { id: string } };
  const token = (await runCapture([cli, "token", "--account", account.aps.id, "--data", dataDir])).trim();
  const one = await httpsCall(
    base,
    ca,
    "POST",
    "/aps/2/resources",
    { "aps-token": token },
    JSON.stringify({ aps: { type: ITEM }, name: "check" }),
  );
  if (one.status !== 201) throw new Error(`provisioning failed: ${one.text}`);

  const baselinePort = port + 1;
  const baseline = await startLogged(
    [
      "--import",
      "tsx",
      "bench/provision-baseline.ts",
      dbUrl,
      dataDir,
      endpoint!,
      endpointCaPath!,
      String(baselinePort),
    ],
    /ready/,
    join(dir, "baseline.log"),
    { BENCH_INSTANCE: instanceId },
  );
  const sameTable = await startLogged(
    [
      "--import",
      "tsx",
      "bench/provision-baseline.ts",
      dbUrl,
      dataDir,
      endpoint!,
      endpointCaPath!,
      String(baselinePort + 1),
      "resources",
    ],
    /ready/,
    join(dir, "baseline-resources.log"),
    { BENCH_INSTANCE: instanceId },
  );
  children.push(baseline, sameTable);

  const targets: { name: string; url: string; headers: Record<string, string>; body: string; server: ChildProcess }[] =
    [
      {
        name: "aps-gen controller (validate, roles, forward)",
        url: `${base}/aps/2/resources`,
        headers: { "aps-token": token },
        body: JSON.stringify({ aps: { type: ITEM }, name: "bench item", size: 3 }),
        server: controller,
      },
      {
        name: "baseline: Hono -> connector -> one INSERT",
        url: `https://127.0.0.1:${baselinePort}/items`,
        headers: {},
        body: JSON.stringify({ name: "bench item", size: 3 }),
        server: baseline,
      },
      {
        name: "baseline, row into resources (same indexes)",
        url: `https://127.0.0.1:${baselinePort + 1}/items`,
        headers: {},
        body: JSON.stringify({ name: "bench item", size: 3 }),
        server: sameTable,
      },
    ];
  // CPU per request of the last round, per target: server, connector, PostgreSQL, load generator.
  const splits = targets.map(
    (t) => new CpuMeter(() => ({ server: t.server.pid, connector: connectorProcess.pid }), dbName),
  );
  const load = (t: (typeof targets)[number], i: number) =>
    requestsPerSecond(
      { url: t.url, ca, connections, seconds, method: "POST", headers: t.headers, body: t.body, work: dir },
      splits[i],
    );
  const results: number[][] = targets.map(() => []);
  for (let round = 1; round <= rounds; round++) {
    for (const [i, t] of targets.entries()) results[i]!.push(load(t, i));
    process.stderr.write(`round ${round}/${rounds}: ${results.map((r) => r.at(-1)!.toFixed(0)).join(" / ")} req/s\n`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const perRound = (other: number) => results[0]!.map((r, k) => r / results[other]![k]!);
  const ratio = median(perRound(1));
  console.log(
    `\nProvisioning through a local connector, ${connections} connections, ${rounds} rounds of ${seconds} s each, PostgreSQL, default log level, ${generator}`,
  );
  console.log("server                                         req/s   (median of the rounds)");
  for (const [i, t] of targets.entries())
    console.log(`${t.name.padEnd(45)} ${median(results[i]!).toFixed(0).padStart(6)}`);
  const pct = (xs: number[]) => xs.map((x) => `${(x * 100).toFixed(0)}%`).join(", ");
  console.log(
    `ratio: ${(ratio * 100).toFixed(0)}% of the baseline (target ≥ 75%) ${ratio >= 0.75 ? "✓" : "✗"}; rounds: ${pct(perRound(1))}`,
  );
  if (CpuMeter.available) {
    console.log("CPU per request in the last round (all cores busy: throughput is the cores divided by the sum):");
    for (const [i, t] of targets.entries()) console.log(`  ${t.name}: ${splits[i]!.describe()}`);
    console.log(`  ${serverBudget(splits[0]!, splits[1]!, 0.75)}`);
  }
  console.log(
    `against the same-table baseline: ${(median(perRound(2)) * 100).toFixed(0)}% (what the controller adds beyond storing the row); rounds: ${pct(perRound(2))}`,
  );

  // Configure (PUT, forwarded to the connector, stored with a revision) over resources provisioned
  // above, taken in turn so that two configures of one resource seldom meet (the second would wait
  // for the first's claim). No baseline: its CPU split says where a configure's time goes.
  if (generator === "wrk") {
    const db = postgres(dbUrl, { onnotice: () => {} });
    const items = await db<
      { id: string }[]
    >`select id from resources where type_id = ${ITEM} and owner_account = ${account.aps.id} and status = 'aps:ready' order by seq desc limit 400`;
    await db.end();
    const meter = new CpuMeter(() => ({ server: controller.pid, connector: connectorProcess.pid }), dbName);
    const rate = requestsPerSecond(
      {
        url: `${base}/aps/2/resources`,
        paths: items.map((r) => `/aps/2/resources/${r.id}`),
        ca,
        connections,
        seconds,
        method: "PUT",
        headers: { "aps-token": token },
        body: JSON.stringify({ size: 4 }),
        work: dir,
      },
      meter,
    );
    console.log(
      `\nconfigure (PUT one property) over ${items.length} resources: ${rate.toFixed(0)} req/s; ${meter.describe()}`,
    );
  }
} finally {
  for (const c of children) c.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 500));
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}
