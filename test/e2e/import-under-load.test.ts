/**
 * Issue 18: importing a large package (2000 types) must not stop the controller serving. The
 * compile runs in a worker thread; another client keeps sending GETs all along and their p99
 * latency while the import runs stays under 100 ms. The import tells its progress in the log.
 *
 * The controller is `aps-gen serve` in a process of its own, as it runs in use: in this test's
 * process, vitest would put each of the 2000 validator modules through its own transform on the
 * serving thread, which is the test runner's cost, not the controller's.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { synthesize } from "../../bench/build.bench.ts";
import { filesOf } from "../helpers/files-of.ts";
import { httpsClient } from "../helpers/https-client.ts";
import { percentile, startLatencyProbe } from "../helpers/latency-probe.ts";
import { until } from "../helpers/until.ts";
import { killHard, serveProcess, type ServeProcess } from "./serve-process.ts";

const TYPES = 2000;
const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";
const MAILBOX = "http://cloudmail.example.com/types/mailbox/1.0";
const LAST = `http://bench.example/types/t${TYPES - 1}/1.0`;

describe("a 2000-type package import under load", () => {
  let serve: ServeProcess | undefined;
  let archive: Uint8Array;
  const dir = mkdtempSync(join(tmpdir(), "aps-import-load-"));

  beforeAll(() => {
    synthesize(join(dir, "bench"), TYPES);
    archive = zipSync(filesOf(join(dir, "bench")));
  });
  afterAll(async () => {
    if (serve) await killHard(serve);
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps serving GETs (p99 < 100 ms) while it compiles, and logs its progress", async () => {
    const dataDir = join(dir, "data");
    serve = await serveProcess(dataDir, undefined, [], { logLevel: "info" });
    const url = await serve.url;
    const ca = readFileSync(join(dataDir, "tls/ca.crt"), "utf8");
    const token = readFileSync(join(dataDir, "admin.token"), "utf8").trim();
    const call = httpsClient(url, ca);
    const account = await call("POST", "/aps/2/resources", {
      token,
      body: { aps: { type: ACCOUNT }, companyName: "C", addressPostal: {} },
    });
    expect(account.status, account.text).toBe(201);

    // A type read (the registry) and a resource read (the database), one every 10 ms.
    const probe = startLatencyProbe(url, ca, token, [
      `/aps/2/types/${encodeURIComponent(MAILBOX)}`,
      `/aps/2/resources/${account.json.aps.id}`,
    ]);
    await probe.ready;
    // A quiet second first: the latency without an import, to compare with.
    await new Promise((r) => setTimeout(r, 1000));
    const started = Date.now();
    const imported = await call("POST", "/aps/2/packages", {
      token,
      rawBody: archive,
      headers: { "content-type": "application/zip", "x-package-name": "bench" },
    });
    const ended = Date.now();
    const samples = await probe.stop();
    expect(imported.status, imported.text.slice(0, 500)).toBe(201);
    expect(imported.json.types).toHaveLength(TYPES);

    // The log lines come through a pipe, maybe after the answer.
    await until("the import's last log line", () =>
      serve!.logs.some((l) => l.includes('"msg":"package import ended"')),
    );
    const progress = serve.logs
      .map((l) => JSON.parse(l) as Record<string, any>)
      .filter((l) => typeof l.msg === "string" && l.msg.startsWith("package import"));
    const quiet = samples.filter((s) => s.at < started).map((s) => s.ms);
    const during = samples.filter((s) => s.at >= started && s.at < ended);
    const ms = during.map((s) => s.ms);
    const p99 = percentile(ms, 99);
    console.log(
      [
        `import of ${TYPES} types: ${ended - started} ms; ${during.length} GETs during it: p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms (the second before: p99 ${percentile(quiet, 99).toFixed(1)} ms)`,
        // Each log line with the GETs due since the previous one: where the time and any stall went.
        ...progress.map((l, i) => {
          const window = samples
            .filter((s) => s.at >= (progress[i - 1]?.time ?? started) && s.at < l.time)
            .map((s) => s.ms);
          return `  ${l.msg}${l.phase ? ` ${l.phase}` : ""}: ${l.ms ?? 0} ms; ${window.length} GETs, p99 ${percentile(window, 99).toFixed(1)} ms`;
        }),
      ].join("\n"),
    );
    // Each GET that was not a 200, with its status (0: the connection failed) and when it was due.
    expect(during.filter((s) => s.status !== 200).map((s) => `${s.status} at +${s.at - started} ms`)).toEqual([]);
    // One GET is due every 10 ms whatever the answers do, so a stall shows in many samples.
    expect(during.length).toBeGreaterThan((ended - started) / 20);
    // The target is 100 ms on a quiet machine. When the second before the import already shows
    // the machine busy (other suites on the same 2 cores), the bound grows by twice that excess:
    // a compile on the serving thread stalls for seconds (p99 5750 ms before the worker), far
    // above either bound.
    const quietP99 = percentile(quiet, 99);
    const bound = 100 + 2 * Math.max(0, quietP99 - 10);
    expect(
      p99,
      `p99 ${p99.toFixed(1)} ms during the import; bound ${bound.toFixed(0)} ms (quiet p99 ${quietP99.toFixed(1)} ms)`,
    ).toBeLessThan(bound);

    // The imported types are usable, validators included.
    expect((await call("GET", `/aps/2/types/${encodeURIComponent(LAST)}`, { token })).json.name).toBe(`T${TYPES - 1}`);
    const bad = await call("POST", "/aps/2/resources", { token, body: { aps: { type: LAST }, quota: "lots" } });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.text).toMatch(/quota/);

    // Progress in the log: a start line, each step with its duration and counts, an end line.
    expect(progress[0]).toMatchObject({ msg: "package import started", label: "bench", bytes: archive.length });
    const phases = progress.filter((l) => l.msg === "package import phase");
    expect(phases.map((l) => l.phase)).toEqual(["worker", "unzip", "compile", "registry", "validators", "load"]);
    for (const p of phases) expect(p.ms).toBeGreaterThanOrEqual(0);
    expect(phases.find((l) => l.phase === "unzip")).toMatchObject({ files: TYPES + 1, bytes: archive.length });
    expect(phases.find((l) => l.phase === "compile")).toMatchObject({ types: TYPES, errors: 0 });
    // A module per type: the package's and the core types' it is compiled with.
    expect(phases.find((l) => l.phase === "validators")!.modules).toBeGreaterThan(TYPES);
    expect(phases.find((l) => l.phase === "load")).toMatchObject({ validators: TYPES });
    expect(progress.at(-1)).toMatchObject({ msg: "package import ended", label: "bench", status: 201, types: TYPES });
    expect(progress.at(-1)!.ms).toBeGreaterThan(0);
  }, 240_000);
});
