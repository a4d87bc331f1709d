// The load of the HTTP benchmarks, from a process of its own as operators measure: wrk when it is
// on the PATH (`apt-get install wrk`), else the autocannon CLI. Requests per second of one turn,
// after a warm-up turn.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoDir } from "./child-process.ts";
import type { CpuMeter } from "./process-cpu.ts";

export interface Load {
  readonly url: string;
  readonly ca: string;
  readonly connections: number;
  readonly seconds: number;
  readonly method?: "GET" | "POST" | "PUT";
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** wrk only: paths (under the URL's origin) taken in turn, one per request, instead of the URL's own. */
  readonly paths?: readonly string[];
  /** A folder for the generator's script and CA file. */
  readonly work: string;
}

/** `wrk` or `autocannon`: what `requestsPerSecond` uses on this machine. */
export const generator = spawnSync("wrk", ["--version"]).error === undefined ? "wrk" : "autocannon";

/** Requests per second `load.url` answers, measured for `load.seconds` after 2 s of warm-up; `meter` measures the CPU of the measured turn. */
export function requestsPerSecond(load: Load, meter?: CpuMeter): number {
  const headers = { ...(load.body ? { "content-type": "application/json" } : {}), ...load.headers };
  if (generator === "wrk") {
    const script = join(load.work, "load.lua");
    const lines = [
      `wrk.method = ${JSON.stringify(load.method ?? "GET")}`,
      ...Object.entries(headers).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`),
      ...(load.body ? [`wrk.body = ${JSON.stringify(load.body)}`] : []),
    ];
    if (load.paths)
      lines.push(
        `local paths = {${load.paths.map((p) => JSON.stringify(p)).join(",")}}`,
        "local n = 0",
        "request = function() n = n % #paths + 1; return wrk.format(nil, paths[n]) end",
      );
    writeFileSync(script, lines.join("\n"));
    const run = (seconds: number) =>
      spawnSync("wrk", ["-t1", `-c${load.connections}`, `-d${seconds}s`, "-s", script, load.url], { encoding: "utf8" })
        .stdout;
    run(2);
    meter?.start();
    const out = run(load.seconds);
    meter?.stop(Number(/(\d+) requests in/.exec(out)?.[1] ?? 0));
    // A rate of failures is not a throughput: say so beside the figure.
    const failed = /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1];
    if (failed) process.stderr.write(`  (${failed} of the answers from ${load.url} were not 2xx)\n`);
    return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  }
  // autocannon's CLI trusts the CA through the environment.
  const caFile = join(load.work, "ca.pem");
  writeFileSync(caFile, load.ca);
  const run = (seconds: number) =>
    spawnSync(
      process.execPath,
      [
        join(repoDir, "node_modules/autocannon/autocannon.js"),
        "-j",
        "-c",
        String(load.connections),
        "-d",
        String(seconds),
        "-m",
        load.method ?? "GET",
        ...(load.body ? ["-b", load.body] : []),
        ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}=${v}`]),
        load.url,
      ],
      { env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile }, encoding: "utf8" },
    ).stdout;
  run(2);
  meter?.start();
  const result = JSON.parse(run(load.seconds)) as { requests: { average: number; total: number } };
  meter?.stop(result.requests.total);
  return result.requests.average;
}
