/**
 * How many processes `serve --workers N` runs (cli/serve/workers/worker-plan.ts) and how soon a
 * worker that ended is started again (restart-backoff.ts). The processes themselves:
 * test/e2e/serve-workers.test.ts.
 */
import { describe, expect, it } from "vitest";
import { RestartBackoff } from "../../cli/serve/workers/restart-backoff.ts";
import { workerPlan } from "../../cli/serve/workers/worker-plan.ts";

describe("serve --workers", () => {
  it("defaults to the machine's available parallelism on PostgreSQL, and takes what is asked there", () => {
    expect(workerPlan(undefined, true, true, 8)).toEqual({ count: 8 });
    expect(workerPlan(3, true, true, 8)).toEqual({ count: 3 });
    expect(workerPlan(1, true, true, 8)).toEqual({ count: 1 });
  });

  it("serves the embedded database from one process, saying so when more were asked", () => {
    expect(workerPlan(undefined, false, true, 8)).toEqual({ count: 1 });
    expect(workerPlan(1, false, true, 8)).toEqual({ count: 1 });
    expect(workerPlan(4, false, true, 8)).toEqual({
      count: 1,
      note: "PGlite serves from one process: --workers 4 runs as 1 (give a PostgreSQL --database-url for more)",
    });
  });

  it("serves from the calling process when the CLI's main() runs inside another program", () => {
    expect(workerPlan(undefined, true, false, 8)).toEqual({ count: 1 });
    expect(workerPlan(2, true, false, 8)).toEqual({
      count: 1,
      note: "serve called inside another program serves from its process: --workers 2 runs as 1 (run the aps-gen command for more)",
    });
  });

  it("refuses a count that is not a whole number of at least 1", () => {
    for (const asked of [0, -2, 1.5, Number.NaN])
      expect(workerPlan(asked, true, true, 8)).toEqual({
        error: `--workers takes a whole number of at least 1, not ${asked}`,
      });
  });
});

describe("restarting a worker that ended", () => {
  it("starts one that had served a while again at once", () => {
    const backoff = new RestartBackoff();
    expect(backoff.waitAfter(60_000)).toBe(0);
    expect(backoff.waitAfter(3_600_000)).toBe(0);
  });

  it("waits longer after each that ended soon after it started, up to 30 s, and forgets once one serves a while", () => {
    const backoff = new RestartBackoff();
    const waits = Array.from({ length: 9 }, () => backoff.waitAfter(200));
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
    expect(backoff.waitAfter(10_000)).toBe(0);
    expect(backoff.waitAfter(200)).toBe(500);
  });
});
