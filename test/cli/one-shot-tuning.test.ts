import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { isOneShotCompile } from "../../bin/one-shot-tuning.js";
import { repoRoot } from "../helpers/paths.ts";

describe("V8 settings of a one-shot compile (bin/one-shot-tuning.js)", () => {
  it("tunes build and check, not watching or serving", () => {
    expect(isOneShotCompile(["build", "--types", "types"])).toBe(true);
    expect(isOneShotCompile(["check"])).toBe(true);
    expect(isOneShotCompile(["build", "--watch"])).toBe(false);
    expect(isOneShotCompile(["build", "--watch=true"])).toBe(false);
    expect(isOneShotCompile(["serve", "--types", "build"])).toBe(false);
    expect(isOneShotCompile(["--types", "x", "build"])).toBe(false);
    expect(isOneShotCompile([])).toBe(false);
  });

  it("takes effect in the process the bin starts: a function called 30,000 times is optimised with V8's defaults only, one called 300,000 times in both", () => {
    // --allow-natives-syntax lets the child ask V8 whether the function got optimised; without
    // concurrent recompilation that happens on the call that asks for it, so the answer is certain.
    // V8's default budget optimises it after 5,000-10,000 calls, the one-shot one after 50,000-100,000.
    const probe = (calls: number) => `import { tuneForOneShot } from "./bin/one-shot-tuning.js";
tuneForOneShot(process.argv.slice(1)); // with -e, argv[1] is the first argument
function hot(x) { return x * 2 + 1; }
function drive(n) { for (let i = 0; i < n; i++) hot(i); }
%NeverOptimizeFunction(drive);
drive(${calls});
// Bit 16 of the status: optimised code (V8 src/runtime/runtime.h, OptimizationStatus).
console.log((%GetOptimizationStatus(hot) & 16) !== 0 ? "optimised" : "not optimised");`;
    const run = (args: string[], calls = 30000) =>
      spawnSync(
        process.execPath,
        [
          "--allow-natives-syntax",
          "--no-concurrent-recompilation",
          "--input-type=module",
          "-e",
          probe(calls),
          "--",
          ...args,
        ],
        { cwd: repoRoot, encoding: "utf8" },
      ).stdout.trim();
    expect(run(["build"])).toBe("not optimised");
    expect(run(["check"])).toBe("not optimised");
    expect(run(["serve"])).toBe("optimised");
    // The hottest code is still optimised in a one-shot compile (--no-opt would leave it interpreted).
    expect(run(["build"], 300000)).toBe("optimised");
  });
});
