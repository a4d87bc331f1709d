import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { isOneShotCompile } from "../../bin/one-shot-tuning.js";
import { repoRoot } from "../helpers/paths.ts";

describe("V8 settings of a one-shot compile (bin/one-shot-tuning.js)", () => {
  it("turns the optimising compiler off for build and check, not for watching or serving", () => {
    expect(isOneShotCompile(["build", "--types", "types"])).toBe(true);
    expect(isOneShotCompile(["check"])).toBe(true);
    expect(isOneShotCompile(["build", "--watch"])).toBe(false);
    expect(isOneShotCompile(["build", "--watch=true"])).toBe(false);
    expect(isOneShotCompile(["serve", "--types", "build"])).toBe(false);
    expect(isOneShotCompile(["--types", "x", "build"])).toBe(false);
    expect(isOneShotCompile([])).toBe(false);
  });

  it("takes effect in the process the bin starts", () => {
    // --allow-natives-syntax lets the child ask V8 whether a hot function got optimised.
    const probe = `import { tuneForOneShot } from "./bin/one-shot-tuning.js";
tuneForOneShot(process.argv.slice(1)); // with -e, argv[1] is the first argument
function hot(x) { return x * 2 + 1; }
%PrepareFunctionForOptimization(hot); hot(1); hot(2); %OptimizeFunctionOnNextCall(hot); hot(3);
// Bit 16 of the status: optimised code (V8 src/runtime/runtime.h, OptimizationStatus).
console.log((%GetOptimizationStatus(hot) & 16) !== 0 ? "optimised" : "not optimised");`;
    const run = (args: string[]) => spawnSync(process.execPath, ["--allow-natives-syntax", "--input-type=module", "-e", probe, "--", ...args], { cwd: repoRoot, encoding: "utf8" });
    expect(run(["build"]).stdout.trim()).toBe("not optimised");
    expect(run(["serve"]).stdout.trim()).toBe("optimised");
  });
});
