// CLI benchmark (issue 18): the CPU a user's command costs as a process, against tools of its
// kind in the same run. Run: npm run bench:cli [-- --runs 5 --types 1000 --no-build]
//
// - `aps-gen --help` and `aps-gen check` of a small package against `tsc --version` (target ≤ 1.5×);
// - `aps-gen build` of a 1000-type package with APP-META.xml (fresh output folder, and again
//   when it is up to date; target < 2 s) against openapi-typescript on the OpenAPI document of
//   the same types (target ≤ 0.5×). openapi-typescript is installed into the temporary folder
//   on first use (it needs TypeScript 5, this repository pins 6); without it, that line says so.
//
// The compiled CLI is measured (dist/, as npm installs it): the bench builds it first.
// Figures are medians; every process is timed whole, start-up included (bench/cpu-report.mjs).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildOpenApi } from "../generator/emit/openapi/emit-openapi.ts";
import { compile } from "../generator/pipeline.ts";
import { synthesize } from "./build.bench.ts";
import { repoDir } from "./child-process.ts";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    types: { type: "string", default: "1000" },
    build: { type: "boolean", default: true },
    "no-build": { type: "boolean", default: false },
  },
});
const runs = Math.max(1, Number(values.runs) || 5);
const typeCount = Math.max(1, Number(values.types) || 1000);
const root = mkdtempSync(join(tmpdir(), "aps-gen-bench-cli-"));
const cpuReport = join(repoDir, "bench/cpu-report.mjs");

interface Timing {
  cpuMs: number;
  wallMs: number;
}

/** Runs `node <args>` once and returns its whole-process CPU and wall time. */
function timeProcess(args: readonly string[], cwd = repoDir): Timing {
  const report = join(root, "cpu.json");
  rmSync(report, { force: true });
  const r = spawnSync(process.execPath, ["--import", cpuReport, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, APS_CPU_REPORT: report, NODE_OPTIONS: "", NO_COLOR: "1" },
  });
  if (r.status !== 0 && r.status !== 1) throw new Error(`node ${args.join(" ")} exited with ${r.status}: ${r.stderr}`);
  return JSON.parse(readFileSync(report, "utf8")) as Timing;
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Medians of `runs` runs; `before` runs (untimed) ahead of each, e.g. to empty an output folder. */
function measure(args: readonly string[], before: () => void = () => {}, cwd = repoDir, times = runs): Timing {
  const samples: Timing[] = [];
  for (let i = 0; i < times; i++) {
    before();
    samples.push(timeProcess(args, cwd));
  }
  return { cpuMs: median(samples.map((s) => s.cpuMs)), wallMs: median(samples.map((s) => s.wallMs)) };
}

/** openapi-typescript's CLI, installed once into the temporary folder; undefined when it cannot be. */
function openapiTypescript(): string | undefined {
  const dir = join(tmpdir(), "aps-gen-bench-openapi-typescript");
  const cli = join(dir, "node_modules/openapi-typescript/bin/cli.js");
  if (existsSync(cli)) return cli;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "bench-openapi-typescript", private: true }));
  console.log("installing openapi-typescript@7 (with typescript@5) into the temporary folder...");
  const r = spawnSync(
    "npm",
    [
      "install",
      "openapi-typescript@7",
      "typescript@5",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
    ],
    { cwd: dir, encoding: "utf8" },
  );
  return r.status === 0 && existsSync(cli) ? cli : undefined;
}

const ms = (t: Timing) => `${t.cpuMs.toFixed(0).padStart(6)} ms CPU  ${t.wallMs.toFixed(0).padStart(6)} ms wall`;
const verdict = (ok: boolean) => (ok ? "✓" : "✗");

function main(): void {
  if (values.build && !values["no-build"]) {
    const b = spawnSync(process.execPath, ["scripts/build-package.mjs"], { cwd: repoDir, stdio: "inherit" });
    if (b.status !== 0) throw new Error("npm run build failed");
  }
  // The installed bin runs dist/ when the sources are absent; from a checkout it runs them, so the
  // compiled entry is started directly here, with the bin's V8 settings (bin/one-shot-tuning.js).
  const runner = join(root, "aps-gen.mjs");
  writeFileSync(
    runner,
    `(await import(${JSON.stringify(join(repoDir, "bin/one-shot-tuning.js"))})).tuneForOneShot(process.argv.slice(2));\nconst { main } = await import(${JSON.stringify(join(repoDir, "dist/cli-bundle/main.js"))});\nprocess.exitCode = await main(process.argv.slice(2));\n`,
  );
  const tsc = join(repoDir, "node_modules/typescript/bin/tsc");

  console.log(`CLI start-up: median of ${runs} runs, whole process (node start-up included)\n`);
  const base = measure([tsc, "--version"]);
  console.log(`  tsc --version (baseline)          ${ms(base)}`);
  for (const [label, args] of [
    ["aps-gen --help", ["--help"]],
    ["aps-gen --version", ["--version"]],
    ["aps-gen check (cloudmail + core)", ["check", "--types", "types/examples/cloudmail"]],
  ] as const) {
    const t = measure([runner, ...args]);
    const ratio = t.cpuMs / base.cpuMs;
    console.log(`  ${label.padEnd(33)} ${ms(t)}  ${ratio.toFixed(2)}× CPU (target ≤ 1.5) ${verdict(ratio <= 1.5)}`);
  }

  console.log(`\nbuild of a ${typeCount}-type package with APP-META.xml (median of ${Math.min(runs, 3)} runs)\n`);
  const pkg = join(root, "pkg");
  synthesize(pkg, typeCount);
  const out = join(root, "out");
  const fresh = measure(
    [runner, "build", "--types", pkg, "--out", out],
    () => rmSync(out, { recursive: true, force: true }),
    repoDir,
    Math.min(runs, 3),
  );
  console.log(
    `  aps-gen build (empty output)      ${ms(fresh)}  (target < 2000 ms wall) ${verdict(fresh.wallMs < 2000)}`,
  );
  // The same build with V8's default settings, to show what bin/one-shot-tuning.js is worth.
  const untuned = join(root, "aps-gen-untuned.mjs");
  writeFileSync(
    untuned,
    `const { main } = await import(${JSON.stringify(join(repoDir, "dist/cli-bundle/main.js"))});\nprocess.exitCode = await main(process.argv.slice(2));\n`,
  );
  const defaults = measure(
    [untuned, "build", "--types", pkg, "--out", out],
    () => rmSync(out, { recursive: true, force: true }),
    repoDir,
    Math.min(runs, 3),
  );
  console.log(
    `  same, V8 defaults (TurboFan on)   ${ms(defaults)}  (one-shot tuning: ${(fresh.cpuMs / defaults.cpuMs).toFixed(2)}× CPU, ${(fresh.wallMs / defaults.wallMs).toFixed(2)}× wall)`,
  );
  const again = measure([runner, "build", "--types", pkg, "--out", out], () => {}, repoDir, Math.min(runs, 3));
  console.log(
    `  aps-gen build (up to date)        ${ms(again)}  (target < 2000 ms wall) ${verdict(again.wallMs < 2000)}`,
  );
  // The same without the record of the last build (cli/build/build-cache.ts): compiled, emitted and compared.
  const compared = measure(
    [runner, "build", "--no-cache", "--types", pkg, "--out", out],
    () => {},
    repoDir,
    Math.min(runs, 3),
  );
  console.log(`  same, --no-cache (compared)       ${ms(compared)}`);
  const floor = measure(
    [
      "-e",
      `const fs=require("fs");for(let i=0;i<${typeCount * 4};i++){fs.writeFileSync(${JSON.stringify(join(root, "floor"))}+i,"x".repeat(2000))}`,
    ],
    () => {
      rmSync(join(root, "floor"), { recursive: true, force: true });
    },
    root,
    Math.min(runs, 3),
  );
  console.log(
    `  floor: create ${typeCount * 4} small files    ${ms(floor)}  (what the file system alone costs a fresh build)`,
  );

  const cli = openapiTypescript();
  if (cli === undefined) {
    console.log("  openapi-typescript: not measured (could not be installed: no network and not in npm's cache)");
    return;
  }
  const doc = join(root, "openapi.json");
  writeFileSync(doc, JSON.stringify(buildOpenApi(compile([pkg], { cwd: root }).model)));
  const ots = measure([cli, doc, "-o", join(root, "openapi.d.ts")], () => {}, root, Math.min(runs, 3));
  console.log(`  openapi-typescript (same types)   ${ms(ots)}`);
  const ratio = fresh.cpuMs / ots.cpuMs;
  console.log(
    `  aps-gen build / openapi-typescript: ${ratio.toFixed(2)}× CPU fresh, ${(again.cpuMs / ots.cpuMs).toFixed(2)}× up to date (target ≤ 0.5) ${verdict(ratio <= 0.5)}`,
  );
}

try {
  main();
} finally {
  rmSync(root, { recursive: true, force: true });
}
