import { describe, expect, it } from "vitest";
import { layoutGraph } from "../../console/src/graph-layout.ts";
import {
  ancestorsOf,
  childrenOf,
  membersOf,
  propertyAttributes,
  type TypeInfo,
  type TypeMap,
} from "../../console/src/type-catalog.ts";

function type(id: string, parts: Partial<TypeInfo> = {}): TypeInfo {
  return {
    aps: { id, href: `/aps/2/types/${encodeURIComponent(id)}` },
    id,
    name: id.toUpperCase(),
    apsVersion: "2.0",
    ...parts,
  };
}

/** resource <- service <- mailbox, mailbox also implements suspendable; mailbox redeclares `notes`. */
const types: TypeMap = new Map(
  [
    type("resource", {
      properties: { notes: { type: "string" } },
      operations: { provision: { verb: "POST", path: "/" } },
    }),
    type("suspendable", { operations: { disable: { verb: "PUT", path: "/disable" } } }),
    type("service", {
      implements: ["resource"],
      properties: { quota: { type: "integer", unit: "mb", default: 9007199254740993n } },
    }),
    type("mailbox", {
      implements: ["service", "suspendable"],
      properties: {
        notes: { type: "string", maxLength: 10 },
        password: { type: "string", encrypted: true, required: true },
      },
      relations: { domain: { type: "domain", required: true } },
    }),
    type("domain", { implements: ["resource"], relations: { self: { type: "domain" } } }),
  ].map((t) => [t.id, t]),
);

describe("the console's view of types", () => {
  it("lists a type's ancestors nearest first, each once", () => {
    expect(ancestorsOf(types, "mailbox")).toEqual(["service", "suspendable", "resource"]);
    expect(ancestorsOf(types, "resource")).toEqual([]);
    expect(childrenOf(types, "resource").map((t) => t.id)).toEqual(["service", "domain"]);
  });

  it("gives own members unmarked and inherited ones marked with the type they come from; a redeclared member is the child's", () => {
    const members = membersOf(types, "mailbox").map((m) => [m.kind, m.name, m.from ?? ""]);
    expect(members).toEqual([
      ["property", "notes", ""],
      ["property", "password", ""],
      ["relation", "domain", ""],
      ["property", "quota", "service"],
      ["operation", "disable", "suspendable"],
      ["operation", "provision", "resource"],
    ]);
  });

  it("describes each member's type and attributes, 64-bit defaults exact", () => {
    const byName = new Map(membersOf(types, "mailbox").map((m) => [m.name, m]));
    expect(byName.get("password")).toMatchObject({ type: "string", attributes: ["required", "encrypted"] });
    expect(byName.get("quota")).toMatchObject({ type: "integer", attributes: ["unit mb", "default 9007199254740993"] });
    expect(byName.get("domain")).toMatchObject({ type: "domain", linksTo: "domain", attributes: ["required"] });
    expect(byName.get("disable")).toMatchObject({ type: "PUT /disable" });
  });

  it("names another type's structure by that type, an array of one too; a type's own structure stays as written", () => {
    const contact = "http://aps-standard.org/types/core/contact/1.2";
    const holder = new Map([
      ...types,
      [
        "holder",
        type("holder", {
          properties: {
            address: { type: `${contact}#Address` },
            addresses: { type: "array", items: { type: `${contact}#Address` } },
            own: { type: "Local" },
            ownHash: { type: "#Local" },
          },
        }),
      ],
    ]);
    const byName = new Map(membersOf(holder, "holder").map((m) => [m.name, m]));
    expect(byName.get("address")?.structure).toEqual({ typeId: contact, name: "Address", array: false });
    expect(byName.get("addresses")?.structure).toEqual({ typeId: contact, name: "Address", array: true });
    expect(byName.get("own")?.structure).toBeUndefined();
    expect(byName.get("ownHash")?.structure).toBeUndefined();
  });

  it("lists a structure member's limits, enum, default and access like a property's", () => {
    expect(
      propertyAttributes({
        type: "array",
        required: true,
        minItems: 1,
        maxItems: 3,
        uniqueItems: true,
        default: ["a"],
        access: { referrer: true, owner: false },
      }),
    ).toEqual(["required", "minItems 1", "maxItems 3", "unique items", 'default ["a"]', "access: referrer"]);
    expect(propertyAttributes({ type: "string", pattern: "^[0-9]+$", enum: ["1", "2"] })).toEqual([
      "pattern ^[0-9]+$",
      "one of 1, 2",
    ]);
  });

  it("lays the graph out in layers by inheritance, with an edge per parent and per relation to a known type", () => {
    const layout = layoutGraph(types);
    const y = (id: string) => layout.nodes.get(id)!.y;
    expect(y("resource")).toBe(y("suspendable"));
    expect(y("service")).toBeGreaterThan(y("resource"));
    expect(y("domain")).toBe(y("service"));
    expect(y("mailbox")).toBeGreaterThan(y("service"));
    expect(layout.edges).toEqual(
      expect.arrayContaining([
        { from: "mailbox", to: "service", kind: "implements" },
        { from: "mailbox", to: "suspendable", kind: "implements" },
        { from: "mailbox", to: "domain", kind: "relation", name: "domain" },
        { from: "domain", to: "domain", kind: "relation", name: "self" },
      ]),
    );
    expect(layout.edges).toHaveLength(6);
    // No two nodes of a row overlap, and every node is inside the drawing.
    const nodes = [...layout.nodes.values()];
    for (const a of nodes) {
      expect(a.x).toBeGreaterThanOrEqual(0);
      expect(a.x + a.width).toBeLessThanOrEqual(layout.width + 1e-9);
      for (const b of nodes)
        if (a !== b && a.y === b.y) expect(a.x + a.width <= b.x || b.x + b.width <= a.x).toBe(true);
    }
  });

  it("wraps a wide layer into rows of at most eight", () => {
    const wide: TypeMap = new Map([
      ["root", type("root")],
      ...Array.from({ length: 20 }, (_, i) => [`t${i}`, type(`t${i}`, { implements: ["root"] })] as const),
    ]);
    const rows = new Set([...layoutGraph(wide).nodes.values()].map((n) => n.y));
    expect(rows.size).toBe(4);
  });
});
