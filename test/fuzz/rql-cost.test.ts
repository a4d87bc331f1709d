/**
 * Issue 15, item 18: `in`/`out` over a large resource cost one extraction of the value per row,
 * not one pass over the body per listed value. Measured on PGlite and, when DATABASE_URL is set,
 * on PostgreSQL; the bound is loose (the machine is shared) but far below what the per-value SQL took.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databases } from "../e2e/controller-harness.ts";
import { startInProcessController, type InProcessController } from "./in-process-controller.ts";

const NOTE = "http://notes.example/types/note/1.0";
/** Values in the list: the most one list may have (MAX_RQL_LIST_VALUES). */
const VALUES = 1000;

describe.each(databases)("RQL cost over large resources on %s", (kind) => {
  let c: InProcessController;

  beforeAll(async () => {
    c = await startInProcessController(kind, ["test/fixtures/controller/notes"]);
    // Bodies just under the 1 MiB limit, of text that does not compress (so PostgreSQL keeps it out of line, as large bodies are).
    for (let i = 0; i < 4; i++) {
      const tags = Array.from({ length: 9000 }, () => randomBytes(48).toString("base64"));
      const r = await c.request("/aps/2/resources", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ aps: { type: NOTE }, title: `large ${i}`, size: i, tags }),
      });
      expect(r.status, await r.clone().text()).toBe(201);
    }
  }, 120_000);
  afterAll(async () => c?.dispose());

  const timed = async (query: string) => {
    const started = performance.now();
    const r = await c.request(`/aps/2/resources?implementing(${encodeURIComponent(NOTE)}),${query},select(title)`);
    const ms = performance.now() - started;
    const text = await r.text();
    expect(r.status, text).toBeLessThan(300);
    return { ms, titles: (JSON.parse(text) as { title: string }[]).map((n) => n.title).sort() };
  };

  it(`out() and in() with ${VALUES} values stay cheap and correct`, async () => {
    const numbers = Array.from({ length: VALUES - 1 }, (_, i) => String(i + 2));
    const out = await timed(`out(size,(${numbers.join(",")}))`);
    expect(out.titles).toEqual(["large 0", "large 1"]);
    const inList = await timed(`in(title,(${["large%201", ...numbers].join(",")}))`);
    expect(inList.titles).toEqual(["large 1"]);
    const one = await timed("eq(size,1)");
    console.log(
      `${kind}: out(size, ${VALUES} values) ${out.ms.toFixed(0)} ms, in(title, ${VALUES} values) ${inList.ms.toFixed(0)} ms, eq(size,1) ${one.ms.toFixed(0)} ms over 4 bodies of ~0.9 MB`,
    );
    // Per-value SQL took seconds here (one pass over each body per value and candidate).
    expect(out.ms).toBeLessThan(1500);
    expect(inList.ms).toBeLessThan(1500);
  }, 120_000);

  it("more values than a list may have, or a longer query, is a 400 in the error shape", async () => {
    const tooMany = Array.from({ length: VALUES + 1 }, (_, i) => String(i)).join(",");
    const r = await c.request(`/aps/2/resources?out(size,(${tooMany}))`);
    expect(r.status).toBe(400);
    expect(((await r.json()) as { message: string }).message).toMatch(/more than the 1000 accepted/);
    const long = await c.request(`/aps/2/resources?eq(title,${"x".repeat(17 * 1024)})`);
    expect(long.status).toBe(400);
    expect(((await long.json()) as { message: string }).message).toMatch(/more than the 16384 accepted/);
  });

  it("a query of more than 32 comparisons is a 400", async () => {
    const many = (n: number) => `or(${Array.from({ length: n }, (_, i) => `eq(size,${i + 5})`).join(",")})`;
    const r = await c.request(`/aps/2/resources?${many(33)}`);
    expect(r.status).toBe(400);
    expect(((await r.json()) as { message: string }).message).toMatch(
      /33 comparisons, more than the 32 accepted; to match one of many values use in/,
    );
    // Each comparison still reads the body of each row again (see docs/controller.md, "Lists and RQL"): the bound is what keeps this short.
    const most = await timed(many(32));
    expect(most.titles).toEqual([]);
    console.log(`${kind}: or() of 32 eq() ${most.ms.toFixed(0)} ms over 4 bodies of ~0.9 MB`);
  }, 60_000);
});
