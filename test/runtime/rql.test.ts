import { describe, expect, it } from "vitest";
import { parseRql, RqlError } from "../../runtime/common/rql.ts";

const filter = (q: string) => parseRql(q).filter;

describe("parseRql: comparisons (docs/aps/rql.md section 3)", () => {
  it.each(["eq", "ne", "lt", "gt", "le", "ge"] as const)("%s in call and FIQL form", (op) => {
    expect(filter(`${op}(quota,5)`)).toEqual({ op, prop: "quota", value: "5" });
    expect(filter(`quota=${op}=5`)).toEqual({ op, prop: "quota", value: "5" });
  });

  it("reads dotted meta fields and decodes values after splitting", () => {
    expect(filter("eq(aps.status,aps:ready)")).toEqual({ op: "eq", prop: "aps.status", value: "aps:ready" });
    expect(filter("name=eq=value%20with%20space%2C%28and%29")).toEqual({
      op: "eq",
      prop: "name",
      value: "value with space,(and)",
    });
  });
});

describe("parseRql: sets, like, logic", () => {
  it("in and out take a list", () => {
    expect(filter("in(name,(Silver,Gold))")).toEqual({ op: "in", prop: "name", values: ["Silver", "Gold"] });
    expect(filter("out(name,(a%2Cb))")).toEqual({ op: "out", prop: "name", values: ["a,b"] });
  });

  it("like splits wildcards before decoding, so %2A is a literal star", () => {
    expect(filter("like(firstName,Jo*)")).toEqual({
      op: "like",
      prop: "firstName",
      pattern: [{ text: "Jo" }, { any: "many" }],
    });
    expect(filter("like(firstName,*oh?)")).toEqual({
      op: "like",
      prop: "firstName",
      pattern: [{ any: "many" }, { text: "oh" }, { any: "one" }],
    });
    expect(filter("like(name,a%2Ab)")).toEqual({ op: "like", prop: "name", pattern: [{ text: "a*b" }] });
  });

  it("and, or, not, groups with |, and top-level , and & as AND", () => {
    const a = { op: "eq", prop: "a", value: "1" };
    const b = { op: "ge", prop: "b", value: "2" };
    expect(filter("and(eq(a,1),b=ge=2)")).toEqual({ op: "and", args: [a, b] });
    expect(filter("or(eq(a,1),b=ge=2)")).toEqual({ op: "or", args: [a, b] });
    expect(filter("not(eq(a,1))")).toEqual({ op: "not", arg: a });
    expect(filter("(a=eq=1|b=ge=2)")).toEqual({ op: "or", args: [a, b] });
    expect(filter("eq(a,1),b=ge=2")).toEqual({ op: "and", args: [a, b] });
    expect(filter("eq(a,1)&b=ge=2")).toEqual({ op: "and", args: [a, b] });
  });

  it("implementing, composing and linkedWith, with percent-encoded type ids", () => {
    expect(filter("implementing(http%3A%2F%2Fx.example%2Ft%2F1.0)")).toEqual({
      op: "implementing",
      typeId: "http://x.example/t/1.0",
    });
    expect(filter("composing(http://x.example/t/1.0)")).toEqual({ op: "composing", typeId: "http://x.example/t/1.0" });
    expect(filter("linkedWith(abc-1)")).toEqual({ op: "linkedWith", id: "abc-1" });
  });
});

describe("parseRql: sort, select, limit", () => {
  it("collects them apart from the filter", () => {
    expect(parseRql("implementing(t),eq(a,1),sort(+memory,-disk,name),select(name,user),limit(10,5)")).toEqual({
      filter: {
        op: "and",
        args: [
          { op: "implementing", typeId: "t" },
          { op: "eq", prop: "a", value: "1" },
        ],
      },
      sort: [
        { prop: "memory", descending: false },
        { prop: "disk", descending: true },
        { prop: "name", descending: false },
      ],
      select: ["name", "user"],
      limit: { start: 10, count: 5 },
    });
    expect(parseRql("limit(3)").limit).toEqual({ start: 3 });
    expect(parseRql("")).toEqual({ sort: [] });
  });
});

describe("parseRql: malformed queries say where", () => {
  it.each([
    ["eq(a,1", /missing "\)" to close eq\( at character 1/],
    ["eq(a,1))", /expected "&" or "," between query terms, found "\)" at character 8/],
    ["a=like=1", /"like" is not a comparison.* at character 1/],
    ["frob(a,1)", /unknown function "frob"/],
    ["eq(a)", /eq takes 2 arguments/],
    ["eq(a;drop table x,1)", /is not a property name/],
    ["eq(a%ZZ,1)", /malformed %-escape/],
    ["limit(-1,5)", /not a whole number/],
    ["limit(0,99999999999)", /not a whole number/],
    ["(a=eq=1|b=eq=2,c=eq=3)", /mixed in one group/],
    ["name", /neither a call/],
    [",eq(a,1)", /unexpected ","/],
    [`${"not(".repeat(40)}eq(a,1)${")".repeat(40)}`, /nests deeper than 32/],
  ])("%s", (q, message) => {
    expect(() => parseRql(q)).toThrow(RqlError);
    expect(() => parseRql(q)).toThrow(message);
  });

  it("keeps quotes, semicolons and comments as plain values for the SQL layer to bind", () => {
    expect(filter("eq(name,x'%3B%20DROP%20TABLE%20resources%3B--)")).toEqual({
      op: "eq",
      prop: "name",
      value: "x'; DROP TABLE resources;--",
    });
  });
});
