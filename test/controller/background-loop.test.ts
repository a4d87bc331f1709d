import pino from "pino";
import { describe, expect, it } from "vitest";
import { DatabaseOutageLog } from "../../runtime/controller/observability/database-outage-log.ts";
import { BackgroundLoop } from "../../runtime/controller/support/background-loop.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("BackgroundLoop", () => {
  it("runs passes back to back while they find work, then pauses", async () => {
    let work = 5;
    let passes = 0;
    const loop = new BackgroundLoop(
      async () => {
        passes++;
        return work-- > 0;
      },
      10_000,
      () => {},
    );
    loop.start();
    await sleep(50);
    await loop.stop();
    // Five passes with work and the idle one: no pause between them, and none after stop.
    expect(passes).toBe(6);
  });

  it("ends the pause when nudged", async () => {
    let passes = 0;
    const loop = new BackgroundLoop(
      async () => {
        passes++;
        return false;
      },
      10_000,
      () => {},
    );
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

describe("BackgroundLoop while the database cannot be reached", () => {
  /** A logger whose lines are kept, parsed. */
  const capture = () => {
    const lines: { level: number; msg: string; work?: string; code?: string; downSeconds?: number }[] = [];
    return { lines, logger: pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) }) };
  };
  const refused = () =>
    Object.assign(new Error("Failed query: select 1"), {
      cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
    });

  it("says once that the database is gone and once that it is back, not at every failed pass", async () => {
    const { lines, logger } = capture();
    const errors: unknown[] = [];
    let passes = 0;
    // Five passes fail as with a stopped server, then the server is back.
    const loop = new BackgroundLoop(
      async () => {
        passes++;
        if (passes <= 5) throw refused();
        return false;
      },
      1,
      (e) => errors.push(e),
      new DatabaseOutageLog(logger, "event delivery"),
    );
    loop.start();
    // The pause while the database is gone is 1 s at least (not the loop's 1 ms): five failed passes take 4 s.
    await sleep(1500);
    expect(passes).toBe(2);
    loop.nudge();
    await sleep(20);
    expect(passes).toBe(3);
    for (let i = 0; i < 3; i++) {
      loop.nudge();
      await sleep(20);
    }
    await loop.stop();
    expect(passes).toBeGreaterThanOrEqual(6);
    expect(errors).toEqual([]);
    expect(lines.map((l) => [l.level, l.work, l.msg])).toEqual([
      [40, "event delivery", "event delivery: the database cannot be reached; waiting for it"],
      [40, "event delivery", "event delivery: the database is reachable again; resumed"],
    ]);
    expect(lines[0]!.code).toBe("ECONNREFUSED");
    expect(lines[1]!.downSeconds).toBeGreaterThanOrEqual(1);
  });

  it("still reports any other failure of a pass as before", async () => {
    const { lines, logger } = capture();
    const errors: unknown[] = [];
    let passes = 0;
    const loop = new BackgroundLoop(
      async () => {
        passes++;
        if (passes === 1)
          throw Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505" });
        return false;
      },
      10,
      (e) => errors.push(e),
      new DatabaseOutageLog(logger, "asynchronous tasks"),
    );
    loop.start();
    await sleep(60);
    await loop.stop();
    expect(errors.map((e) => (e as Error).message)).toEqual(["duplicate key value violates unique constraint"]);
    expect(lines).toEqual([]);
  });
});
