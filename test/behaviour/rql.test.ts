import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { databases, startBehaviourController, type BehaviourController } from "./harness.ts";

const NOTE = "http://notes.example/types/note/1.0";
const TOPIC = "http://notes.example/types/topic/1.0";
const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";

describe.each(databases)("RQL lists on %s", (kind) => {
  let t: BehaviourController;
  let token: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await startBehaviourController(kind, ["test/fixtures/controller/notes"]);
    const account = await t.call("POST", "/aps/2/resources", {
      token: t.adminToken,
      body: { aps: { type: ACCOUNT }, companyName: "Q", addressPostal: {} },
    });
    token = await new TokenService(loadKeys(t.dataDir).token).mint({ accountId: account.json.aps.id });
    const notes = [
      { title: "alpha", size: 1, score: 0.5, done: true, tags: ["a"], meta: { lang: "en" }, body: "5" },
      { title: "beta", size: 2, score: 1.5, done: false, tags: ["b"], meta: { lang: "de" } },
      { title: "gamma", size: 3, score: 2.5, done: true, meta: { lang: "en" }, body: "it's a 50% * match" },
      { title: "delta", size: 10, done: false, body: "x'; DROP TABLE resources;--" },
      { title: "epsilon", size: 9223372036854775807n },
    ];
    for (const n of notes) {
      const r = await t.call("POST", "/aps/2/resources", { token, body: { aps: { type: NOTE }, ...n } });
      expect(r.status).toBe(201);
      ids[n.title] = r.json.aps.id;
    }
    const topic = await t.call("POST", "/aps/2/resources", { token, body: { aps: { type: TOPIC }, name: "t" } });
    ids.topic = topic.json.aps.id;
  }, 60_000);
  afterAll(async () => t?.dispose());

  const titles = async (query: string) => {
    const r = await t.call("GET", `/aps/2/resources?implementing(${encodeURIComponent(NOTE)}),${query}`, { token });
    expect(r.status, `${query}: ${r.text}`).toBeLessThan(300);
    return r.json.map((x: { title: string }) => x.title).sort();
  };

  it.each([
    ["eq(size,2)", ["beta"]],
    ["size=eq=2", ["beta"]],
    ["ne(size,2)", ["alpha", "delta", "epsilon", "gamma"]],
    ["lt(size,3)", ["alpha", "beta"]],
    ["le(size,3)", ["alpha", "beta", "gamma"]],
    ["gt(size,3)", ["delta", "epsilon"]],
    ["size=ge=10", ["delta", "epsilon"]],
    ["eq(size,9223372036854775807)", ["epsilon"]],
    ["gt(size,9223372036854775806)", ["epsilon"]],
    ["gt(title,delta)", ["epsilon", "gamma"]],
    ["eq(done,true)", ["alpha", "gamma"]],
    ["eq(score,1.5)", ["beta"]],
    ["eq(meta.lang,en)", ["alpha", "gamma"]],
    ["eq(body,5)", ["alpha"]],
    ["in(title,(alpha,delta,zeta))", ["alpha", "delta"]],
    ["out(title,(alpha,delta))", ["beta", "epsilon", "gamma"]],
    ["like(title,*ta)", ["beta", "delta"]],
    ["like(title,?amma)", ["gamma"]],
    ["like(body,*50%25 %2A*)", ["gamma"]],
    ["and(gt(size,1),lt(size,10))", ["beta", "gamma"]],
    ["or(eq(title,alpha),eq(title,beta))", ["alpha", "beta"]],
    ["(title=eq=alpha|title=eq=beta)", ["alpha", "beta"]],
    ["not(eq(done,true))", ["beta", "delta", "epsilon"]],
    ["eq(aps.status,aps:ready)", ["alpha", "beta", "delta", "epsilon", "gamma"]],
    ["eq(nothing,1)", []],
  ])("%s", async (query, expected) => {
    expect(await titles(query)).toEqual(expected);
  });

  it("implementing includes the type itself and subtypes only; aps.type and aps.id filter", async () => {
    const r = await t.call("GET", `/aps/2/resources?implementing(${encodeURIComponent(TOPIC)})`, { token });
    expect(r.json.map((x: { name: string }) => x.name)).toEqual(["t"]);
    expect(await titles(`eq(aps.id,${ids.beta})`)).toEqual(["beta"]);
    const byType = await t.call("GET", `/aps/2/resources?eq(aps.type,${encodeURIComponent(TOPIC)})`, { token });
    expect(byType.json).toHaveLength(1);
  });

  it("sorts, selects and pages with an exact Content-Range", async () => {
    const base = `implementing(${encodeURIComponent(NOTE)}),sort(-size)`;
    const first = await t.call("GET", `/aps/2/resources?${base},limit(0,2)`, { token });
    expect(first.status).toBe(200);
    expect(first.headers["content-range"]).toBe("items 0-1/5");
    expect(first.json.map((x: { title: string }) => x.title)).toEqual(["epsilon", "delta"]);
    const last = await t.call("GET", `/aps/2/resources?${base},limit(4,2)`, { token });
    expect(last.headers["content-range"]).toBe("items 4-4/5");
    expect(last.json.map((x: { title: string }) => x.title)).toEqual(["alpha"]);
    const past = await t.call("GET", `/aps/2/resources?${base},limit(10,2)`, { token });
    expect(past.headers["content-range"]).toBe("items */5");
    expect(past.json).toEqual([]);
    const whole = await t.call("GET", `/aps/2/resources?${base}`, { token });
    expect(whole.status).toBe(200);
    expect(whole.headers["content-range"]).toBe("items 0-4/5");
    const empty = await t.call("GET", `/aps/2/resources?eq(title,nobody)`, { token });
    expect(empty.headers["content-range"]).toBe("items */0");
    const selected = await t.call("GET", `/aps/2/resources?${base},select(title),limit(0,1)`, { token });
    expect(selected.json).toEqual([{ aps: expect.objectContaining({ type: NOTE }), title: "epsilon" }]);
  });

  it("keeps quotes, semicolons and comments as values: correct results, never SQL", async () => {
    expect(await titles(`eq(body,${encodeURIComponent("x'; DROP TABLE resources;--")})`)).toEqual(["delta"]);
    expect(await titles(`eq(title,${encodeURIComponent("alpha' or '1'='1")})`)).toEqual([]);
    expect(await titles(`like(title,${encodeURIComponent("%' or 1=1 --")})`)).toEqual([]);
    expect(await titles(`eq(meta.lang,${encodeURIComponent('en"}')})`)).toEqual([]);
    const count = await t.call("GET", `/aps/2/resources?implementing(${encodeURIComponent(NOTE)})`, { token });
    expect(count.headers["content-range"]).toBe("items 0-4/5");
  });

  it.each([
    ["eq(title,alpha", /missing "\)"/],
    ["eq(title;drop,1)", /not a property name/],
    ["frob(x)", /unknown function "frob"/],
    ["limit(a,b)", /not a whole number/],
    ["composing(x)", /composing/],
    ["eq(aps.revision,x)", /./],
    ["gt(aps.revision,x)", /whole numbers/],
  ])("answers malformed RQL %s with 400 saying where", async (query, message) => {
    const r = await t.call("GET", `/aps/2/resources?${query}`, { token });
    if (query === "eq(aps.revision,x)") {
      expect(r.status).toBe(200);
      return;
    }
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(message);
  });
});
