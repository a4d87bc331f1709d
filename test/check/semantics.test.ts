import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../../generator/diagnostics/diagnostic.ts";
import { compileDeclarations, decl, idOf, RESOURCE } from "../helpers/declarations.ts";

const SUSPENDABLE = "http://aps-standard.org/types/core/suspendable/1.0";
const ok = { response: { type: "object" }, errorResponse: { type: "object" } };

/** `code@file-index:line` of every diagnostic of the given codes (files are t0.schema, t1.schema...). */
function found(r: { diagnostics: readonly Diagnostic[] }, ...codes: string[]): string[] {
  return r.diagnostics
    .filter((d) => codes.includes(d.code))
    .map((d) => `${d.code}@${/t(\d+)\.schema$/.exec(d.file)?.[1] ?? d.file}`);
}
const errors = (r: { diagnostics: readonly Diagnostic[] }) => r.diagnostics.filter((d) => d.severity === "error");

describe("routes (APS082, APS083)", () => {
  it("knows the inherited base operations: GET / clashes with retrieve, POST / does not clash with static provision", () => {
    const r = compileDeclarations([
      decl("w", {
        implements: [RESOURCE],
        operations: { list: { verb: "GET", path: "/", ...ok }, create: { verb: "POST", path: "/", ...ok } },
      }),
    ]);
    expect(found(r, "APS082")).toEqual(["APS082@0"]);
    expect(r.diagnostics.find((d) => d.code === "APS082")!.message).toContain('operation "retrieve" inherited from');
  });

  it("knows Suspendable's PUT /enable, and redefining an operation under its own name is no clash", () => {
    const r = compileDeclarations([
      decl("w", {
        implements: [RESOURCE, SUSPENDABLE],
        operations: {
          turnOn: { verb: "PUT", path: "/enable", ...ok },
          retrieve: { verb: "GET", path: "/", access: { admin: true, owner: true, referrer: false } },
        },
      }),
    ]);
    expect(found(r, "APS082")).toEqual(["APS082@0"]);
  });

  it("reports a clash between two inherited operations once, at the type that combines them", () => {
    const r = compileDeclarations([
      decl("a", { operations: { x: { verb: "GET", path: "/info", ...ok } } }),
      decl("b", { operations: { y: { verb: "GET", path: "/info", ...ok } } }),
      decl("c", { implements: [RESOURCE, idOf("a"), idOf("b")] }),
      decl("d", { implements: [idOf("c")] }),
    ]);
    expect(found(r, "APS082")).toEqual(["APS082@2"]);
  });

  it("does not treat static paths as relation paths", () => {
    const r = compileDeclarations([
      decl("w", {
        implements: [RESOURCE],
        relations: { users: { type: "http://aps-standard.org/types/core/user/1.0", collection: true } },
        operations: { users: { verb: "GET", path: "/users", static: true, ...ok } },
      }),
    ]);
    expect(errors(r)).toEqual([]);
  });
});

describe("inherited elements are judged once, where they are written", () => {
  it("a child of a type with a bad property or operation gets no second report", () => {
    const r = compileDeclarations([
      decl("p", {
        implements: [RESOURCE],
        properties: { quota: { type: "integer", unit: "MB" } },
        operations: { logs: { verb: "GET", path: "/logs/{day}", ...ok } },
      }),
      decl("c", { implements: [idOf("p")] }),
    ]);
    expect(found(r, "APS045", "APS084")).toEqual(["APS045@0", "APS084@0"]);
  });

  it("a relation clashing with an inherited property is reported at the type that adds the clash", () => {
    const r = compileDeclarations([
      decl("p", { implements: [RESOURCE], properties: { account: { type: "string" } } }),
      decl("c", {
        implements: [idOf("p")],
        relations: { account: { type: "http://aps-standard.org/types/core/account/1.0" } },
      }),
      decl("g", { implements: [idOf("c")] }),
    ]);
    expect(found(r, "APS072")).toEqual(["APS072@1"]);
  });
});

describe("redefinitions (APS029, APS092, APS097)", () => {
  it("compares resolved types: a structure by bare name or by full reference is the same type", () => {
    const r = compileDeclarations([
      decl("p", {
        implements: [RESOURCE],
        properties: { disk: { type: `${RESOURCE}#Counter` }, tags: { type: "array", items: { type: "string" } } },
      }),
      decl("c", {
        implements: [idOf("p")],
        properties: { disk: { type: "Counter", unit: "gb" }, tags: { type: "array", items: { type: "integer" } } },
      }),
    ]);
    expect(found(r, "APS029")).toEqual(["APS029@1"]);
    expect(r.diagnostics.find((d) => d.code === "APS029")!.message).toContain(
      '"array of integer" instead of "array of string"',
    );
  });

  it("does not ask a redefined base operation for a response", () => {
    const r = compileDeclarations([
      decl("w", {
        implements: [RESOURCE],
        operations: {
          configure: { verb: "PUT", path: "/", parameters: { new: { kind: "body", type: "self", required: true } } },
        },
      }),
    ]);
    expect(found(r, "APS092", "APS093")).toEqual([]);
  });

  it("keeps enable and disable at PUT on their own path", () => {
    const r = compileDeclarations([
      decl("w", {
        implements: [RESOURCE, SUSPENDABLE],
        operations: { enable: { verb: "POST", path: "/enable", access: { admin: true } } },
      }),
    ]);
    expect(found(r, "APS097")).toEqual(["APS097@0"]);
    expect(r.diagnostics.find((d) => d.code === "APS097")!.message).toContain('"verb": "PUT"');
  });
});

describe("literals and encryption (APS052, APS054, APS057)", () => {
  it("compares 64-bit integers exactly, beyond 2^53", () => {
    // JSON text, not decl(): a JavaScript number cannot hold 9007199254740993.
    const r = compileDeclarations([
      `{"apsVersion": "2.0", "name": "w", "id": "${idOf("w")}", "implements": ["${RESOURCE}"],
        "properties": {"big": {"type": "integer", "enum": [9007199254740992, 9007199254740993], "default": 9007199254740993},
                       "odd": {"type": "integer", "enum": [1, 2], "default": 9007199254740993}}}`,
    ]);
    expect(found(r, "APS052", "APS054")).toEqual(["APS054@0"]);
    expect(r.diagnostics.find((d) => d.code === "APS054")!.message).toContain('property "odd"');
  });

  it("finds encrypted members of structures nested inside array elements, and only those", () => {
    const r = compileDeclarations([
      decl("w", {
        implements: [RESOURCE],
        properties: { rows: { type: "array", items: { type: "Row" } }, single: { type: "Secret" } },
        structures: {
          Row: { type: "object", properties: { cell: { type: "Cell" } } },
          Cell: { type: "object", properties: { token: { type: "string", encrypted: true } } },
          Secret: { type: "object", properties: { key: { type: "string", encrypted: true } } },
        },
      }),
    ]);
    const hits = r.diagnostics.filter((d) => d.code === "APS057");
    expect(hits).toHaveLength(1);
    expect(hits[0]!.message).toContain('structure "Cell" property "token"');
  });
});
