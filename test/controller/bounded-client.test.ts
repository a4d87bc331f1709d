/**
 * The controller's postgres.js client keeps at most its pool size of statements in flight
 * (runtime/controller/store/bounded-client.ts): more wait, in order, and each still answers in
 * the shape it was asked for. On PostgreSQL (DATABASE_URL); skipped without it.
 */
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { boundedClient } from "../../runtime/controller/store/bounded-client.ts";

const url = process.env.DATABASE_URL;

describe.skipIf(!url)("a postgres.js client bounded to its pool size", () => {
  const client = postgres(url ?? "", { max: 2, onnotice: () => {} });
  const bounded = boundedClient(client, 2);
  afterAll(() => client.end({ timeout: 5 }));

  /** How many of this test's statements PostgreSQL runs at once, sampled while they run. */
  const runningNow = async (observer: postgres.Sql) => Number((await observer`select count(*) as n from pg_stat_activity where query like 'select pg_sleep(0.05), %' and state = 'active'`)[0]!.n);

  it("runs at most two of twelve statements at once, answers each, rows or values, in order", async () => {
    const observer = postgres(url!, { max: 1, onnotice: () => {} });
    try {
      const started = performance.now();
      const order: number[] = [];
      const queries = Array.from({ length: 12 }, (_, i) => {
        const q = bounded.unsafe(`select pg_sleep(0.05), ${i} as i`);
        return (i % 2 ? q.values().then((v) => (v as unknown as unknown[][])[0]![1]) : q.then((rows) => (rows as unknown as { i: number }[])[0]!.i)).then((i) => (order.push(i as number), i));
      });
      let most = 0;
      const sampling = (async () => {
        while (order.length < 12) {
          most = Math.max(most, await runningNow(observer));
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      expect(await Promise.all(queries)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      await sampling;
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(2);
      // Six rounds of two: at least 6 × 50 ms.
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
      expect(order).toEqual([...order].sort((a, b) => a - b));
    } finally {
      await observer.end({ timeout: 5 });
    }
  });

  it("counts a transaction as one statement until it ends, and a failing one frees its place", async () => {
    await expect(bounded.begin(async (tx) => tx`select 1 / 0`)).rejects.toThrow();
    const inTx = bounded.begin(async (tx) => (await tx`select pg_sleep(0.1), 1 as one`)[0]!.one);
    const outside = bounded.unsafe("select 2 as two");
    const third = bounded.unsafe("select 3 as three");
    expect(await inTx).toBe(1);
    expect(await outside).toEqual([{ two: 2 }]);
    expect(await third).toEqual([{ three: 3 }]);
  });
});
