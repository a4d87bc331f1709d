/**
 * The coalescing of the read fence (runtime/controller/store/next-run.ts): a caller gets the
 * answer of a run that started after it asked, never of one already in flight; callers that ask
 * before a run starts share it; at most one run is in flight and one waits behind it.
 */
import { describe, expect, it } from "vitest";
import { NextRun } from "../../runtime/controller/store/next-run.ts";

/** Runs that finish when the test says so, numbered in the order they started. */
function controlledRuns() {
  const started: { n: number; finish: (ok?: boolean) => void }[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const run = () =>
    new Promise<number>((resolve, reject) => {
      const n = started.length + 1;
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      started.push({
        n,
        finish: (ok = true) => {
          inFlight--;
          if (ok) resolve(n);
          else reject(new Error(`run ${n} failed`));
        },
      });
    });
  return { run, started, mostInFlight: () => mostInFlight };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe("NextRun", () => {
  it("starts a run for the first caller, and makes a caller arriving during it wait for the next one", async () => {
    const runs = controlledRuns();
    const next = new NextRun(runs.run);
    const first = next.next();
    expect(runs.started).toHaveLength(1);
    const second = next.next();
    const third = next.next();
    // Not started yet: the one in flight began before they asked.
    expect(runs.started).toHaveLength(1);
    runs.started[0]!.finish();
    expect(await first).toBe(1);
    await settle();
    expect(runs.started).toHaveLength(2);
    runs.started[1]!.finish();
    // Both share run 2, which started after both asked.
    expect(await Promise.all([second, third])).toEqual([2, 2]);
    expect(runs.mostInFlight()).toBe(1);
  });

  it("keeps one run queued however many callers arrive, and a caller after the queued run started waits for a third", async () => {
    const runs = controlledRuns();
    const next = new NextRun(runs.run);
    const answers: Promise<number>[] = [next.next()];
    for (let i = 0; i < 100; i++) answers.push(next.next());
    runs.started[0]!.finish();
    await settle();
    expect(runs.started).toHaveLength(2);
    // Run 2 is in flight now: a new caller may not take it.
    const late = next.next();
    runs.started[1]!.finish();
    await settle();
    expect(runs.started).toHaveLength(3);
    runs.started[2]!.finish();
    const got = await Promise.all(answers);
    expect(got[0]).toBe(1);
    expect(new Set(got.slice(1))).toEqual(new Set([2]));
    expect(await late).toBe(3);
    expect(runs.mostInFlight()).toBe(1);
  });

  it("passes a failed run's error to the callers that waited for it, and runs again for the next caller", async () => {
    const runs = controlledRuns();
    const next = new NextRun(runs.run);
    const failing = next.next();
    runs.started[0]!.finish(false);
    await expect(failing).rejects.toThrow("run 1 failed");
    const again = next.next();
    runs.started[1]!.finish();
    expect(await again).toBe(2);
  });

  it("starts at once when nothing is in flight", async () => {
    const runs = controlledRuns();
    const next = new NextRun(runs.run);
    const a = next.next();
    runs.started[0]!.finish();
    await a;
    await settle();
    const b = next.next();
    expect(runs.started).toHaveLength(2);
    runs.started[1]!.finish();
    expect(await b).toBe(2);
  });
});
