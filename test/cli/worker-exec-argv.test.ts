import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { workerExecArgv } from "../../cli/serve/package-import/worker-exec-argv.ts";

/** Starts a worker thread with `execArgv` and resolves with its exit code (it throws when Node refuses the options). */
const runWorker = (execArgv: string[]) =>
  new Promise<number>((resolve, reject) => {
    const w = new Worker("require('node:worker_threads').parentPort.postMessage(1)", { eval: true, execArgv });
    w.on("error", reject);
    w.on("exit", resolve);
  });

// What `node --max-old-space-size=4096 --stack-trace-limit=50 --liftoff-only bin/aps-gen.js serve` and
// tsx-style loaders put in process.execArgv.
const OPERATOR = [
  "--max-old-space-size=4096",
  "--stack-trace-limit=50",
  "--liftoff-only",
  "--expose-gc",
  "--input-type=module",
  "-C",
  "aps-gen-source",
  "--import",
  "data:text/javascript,0",
  "--enable-source-maps",
  "-e",
  "void 0",
];

describe("the package compiler's worker options", () => {
  it("Node refuses a worker given the process-wide options as they are (what the filter is for)", () => {
    expect(() => new Worker("0", { eval: true, execArgv: OPERATOR.slice(0, 4) })).toThrow(/invalid execArgv/);
  });

  it("keeps the module-loading and warning options with their values, drops V8 flags and how the main script was given", () => {
    expect(workerExecArgv(OPERATOR)).toEqual([
      "-C",
      "aps-gen-source",
      "--import",
      "data:text/javascript,0",
      "--enable-source-maps",
    ]);
    expect(
      workerExecArgv([
        "--conditions=aps-gen-source",
        "--require",
        "./x.cjs",
        "--no-warnings",
        "--input-type",
        "module",
        "--inspect",
      ]),
    ).toEqual(["--conditions=aps-gen-source", "--require", "./x.cjs", "--no-warnings"]);
    expect(workerExecArgv([])).toEqual([]);
  });

  it("a worker starts with what is kept", async () => {
    expect(await runWorker(workerExecArgv(OPERATOR))).toBe(0);
  });
});
