import { describe, expect, it } from "vitest";
import { compileDeclarations, decl, idOf, RESOURCE } from "../helpers/declarations.ts";

const codes = (r: { diagnostics: readonly { code: string }[] }) => r.diagnostics.map((d) => d.code);

describe("buildModel: inheritance", () => {
  it("resolves implements transitively over several parents, nearest first", () => {
    const r = compileDeclarations(
      [
        decl("a", { implements: [idOf("b"), idOf("c")] }),
        decl("b", { implements: [idOf("d")], properties: { fromB: { type: "string" } } }),
        decl("c", { implements: [RESOURCE], properties: { fromC: { type: "integer" } } }),
        decl("d", { properties: { fromD: { type: "boolean" } } }),
      ],
      { core: true },
    );
    const a = r.model.types.get(idOf("a"))!;
    expect(a.ancestors).toEqual([idOf("b"), idOf("d"), idOf("c"), RESOURCE]);
    expect([...a.properties.keys()].sort()).toEqual(["fromB", "fromC", "fromD"]);
    expect(a.isResource).toBe(true);
  });

  it("inherits the base operations of core/resource with their default access", () => {
    const r = compileDeclarations([decl("w", { implements: [RESOURCE] })]);
    const ops = r.model.types.get(idOf("w"))!.operations;
    expect(ops.get("provision")).toMatchObject({
      verb: "POST",
      path: "/",
      static: true,
      access: { admin: true, owner: true, referrer: false },
    });
    expect(ops.get("retrieve")).toMatchObject({ verb: "GET", path: "/", access: { referrer: true } });
    expect(ops.get("configure")).toMatchObject({
      verb: "PUT",
      path: "/",
      parameters: [{ name: "new", kind: "body", required: true, type: { kind: "self" } }],
    });
    expect(ops.get("unprovision")).toMatchObject({ verb: "DELETE", path: "/" });
  });

  it("replaces a redefined inherited element whole: omitted attributes fall back to defaults", () => {
    const r = compileDeclarations([
      decl("parent", { implements: [RESOURCE], properties: { p: { type: "string", required: true, maxLength: 5 } } }),
      decl("child", { implements: [idOf("parent")], properties: { p: { type: "string", title: "again" } } }),
    ]);
    const p = r.model.types.get(idOf("child"))!.properties.get("p")!;
    expect(p).toMatchObject({ title: "again", required: false, declaredIn: idOf("child") });
    expect(p.maxLength).toBeUndefined();
    expect(r.model.types.get(idOf("parent"))!.properties.get("p")!.required).toBe(true);
  });

  it("resolves local structures, inherited ones by bare name, and <type-id>#<Structure>", () => {
    const r = compileDeclarations([
      decl("base", {
        implements: [RESOURCE],
        structures: { Money: { type: "object", properties: { cents: { type: "integer" } } } },
      }),
      decl("shop", {
        implements: [idOf("base")],
        structures: { Line: { type: "object", properties: { price: { type: "Money" } } } },
        properties: {
          lines: { type: "array", items: { type: "Line" } },
          total: { type: "Money" },
          usage: { type: `${RESOURCE}#Counter` },
          other: { type: idOf("base") },
        },
      }),
    ]);
    expect(r.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const shop = r.model.types.get(idOf("shop"))!;
    expect(shop.properties.get("lines")!.type).toEqual({
      kind: "array",
      items: { kind: "structure", typeId: idOf("shop"), name: "Line" },
    });
    expect(shop.properties.get("total")!.type).toEqual({ kind: "structure", typeId: idOf("base"), name: "Money" });
    expect(shop.properties.get("usage")!.type).toEqual({ kind: "structure", typeId: RESOURCE, name: "Counter" });
    expect(shop.properties.get("other")!.type).toEqual({ kind: "resource", typeId: idOf("base") });
    expect(shop.decl.structures.get("Line")!.properties.get("price")!.type).toEqual({
      kind: "structure",
      typeId: idOf("base"),
      name: "Money",
    });
  });

  it("keeps references outside the inputs opaque with a warning, never a crash", () => {
    const r = compileDeclarations([
      decl("x", {
        implements: [RESOURCE, "http://elsewhere.example/types/thing/1.0"],
        properties: {
          s: { type: "http://elsewhere.example/types/thing/1.0#Shape" },
          t: { type: "http://elsewhere.example/types/thing/1.0#Other" },
        },
        relations: { thing: { type: "http://elsewhere.example/types/thing/1.0" } },
      }),
    ]);
    expect(r.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    // One warning per missing type per file.
    expect(codes(r).filter((c) => c === "APS025")).toHaveLength(1);
    expect(r.model.types.get(idOf("x"))!.properties.get("s")!.type).toEqual({
      kind: "opaque",
      ref: "http://elsewhere.example/types/thing/1.0#Shape",
    });
  });

  it("reports unknown structures, cycles and duplicate ids", () => {
    const r = compileDeclarations([
      decl("a", { implements: [idOf("b")], properties: { z: { type: "Nope" }, y: { type: `${RESOURCE}#Nope` } } }),
      decl("b", { implements: [idOf("a")] }),
      decl("a"),
    ]);
    expect(codes(r)).toEqual(expect.arrayContaining(["APS042", "APS112", "APS024", "APS009"]));
  });

  it("reads identical declarations of one id as one type, whatever their layout; differing ones are APS009", () => {
    const widget = decl("w", { implements: [RESOURCE], properties: { a: { type: "string" }, b: { type: "integer" } } });
    // The same declaration written again, members in another order and laid out otherwise.
    const copy = `{"properties": {"b": {"type": "integer"}, "a": {"type": "string"}}, "implements": ["${RESOURCE}"], "id": "${idOf("w")}", "name": "w", "apsVersion": "2.0"}`;
    const same = compileDeclarations([widget, copy]);
    expect(codes(same)).toEqual([]);
    expect([...same.model.packages.flatMap((p) => p.typeIds)].filter((id) => id === idOf("w"))).toHaveLength(1);
    const differing = compileDeclarations([widget, { ...widget, properties: { a: { type: "string" } } }]);
    expect(codes(differing)).toEqual(["APS009"]);
    expect(differing.diagnostics[0]!.message).not.toMatch(/--no-core/);
  });

  it("warns when two parents define the same element differently, and the first wins", () => {
    const r = compileDeclarations([
      decl("p1", { properties: { n: { type: "string" } } }),
      decl("p2", { properties: { n: { type: "integer" } } }),
      decl("kid", { implements: [idOf("p1"), idOf("p2"), RESOURCE] }),
    ]);
    expect(codes(r)).toContain("APS030");
    expect(r.model.types.get(idOf("kid"))!.properties.get("n")!.typeText).toBe("string");
  });
});
