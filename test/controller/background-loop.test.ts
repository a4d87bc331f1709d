import { describe, expect, it } from "vitest";
import { BackgroundLoop } from "../../runtime/controller/support/background-loop.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("BackgroundLoop", () => {
  it("runs passes back to back while they find work, then pauses", async () => {
    let work = 5;
    let passes = 0;
    const loop = new BackgroundLoop(async () => (passes++, work-- > 0), 10_000, () => {});
    loop.start();
    await sleep(50);
    await loop.stop();
    // Five passes with work and the idle one: no pause between them, and none after stop.
    expect(passes).toBe(6);
  });

  it("ends the pause when nudged", async () => {
    let passes = 0;
    const loop = new BackgroundLoop(async () => (passes++, false), 10_000, () => {});
    loop.start();
    await sleep(20);
    expect(passes).toBe(1);
    loop.nudge();
    await sleep(20);
    expect(passes).toBe(2);
    await loop.stop();
  });

  it("reports a failing pass and goes on after the pause", async () => {
    const errors: unknown[] = [];
    let passes = 0;
    const loop = new BackgroundLoop(
      async () => {
        passes++;
        if (passes === 1) throw new Error("database gone");
        return false;
      },
      10,
      (e) => errors.push(e),
    );
    loop.start();
    await sleep(60);
    await loop.stop();
    expect(errors.map((e) => (e as Error).message)).toEqual(["database gone"]);
    expect(passes).toBeGreaterThanOrEqual(2);
  });

  it("stop waits for the pass in hand", async () => {
    let finished = false;
    const loop = new BackgroundLoop(
      async () => {
        await sleep(50);
        finished = true;
        return false;
      },
      10_000,
      () => {},
    );
    loop.start();
    await sleep(5);
    await loop.stop();
    expect(finished).toBe(true);
  });
});
