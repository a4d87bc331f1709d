import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as prettier from "prettier";
import { afterAll, describe, expect, it } from "vitest";
import { emitAll } from "../../generator/build.ts";
import { PRETTIER_OPTIONS } from "../../generator/emit/core/format-options.ts";
import { buildNameTable, declaredNames } from "../../generator/emit/core/name-table.ts";
import { compile } from "../../generator/pipeline.ts";
import { typecheckEmitted } from "../helpers/typecheck.ts";

/**
 * One types module per package declares every type of the package, so every name in it must be
 * unique: TypeScript merges two `interface Foo` of one module without a word. The name table
 * makes them unique; these packages try to make them clash.
 */
const dir = mkdtempSync(join(tmpdir(), "aps-types-names-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RESOURCE = "http://aps-standard.org/types/core/resource/1.0";
const type = (name: string, version: string, rest: object) => ({
  apsVersion: "2.0",
  name,
  id: `http://clash.example/types/${name.toLowerCase()}/${version}`,
  implements: [RESOURCE],
  ...rest,
});

const schemas: Record<string, object> = {
  // Both declare an `Address` structure, each with an enum of the same property.
  "customer.schema": type("Customer", "1.0", {
    properties: {
      home: { type: "Address" },
      // Its enum is `CustomerTier`, a structure of Order.
      tier: { type: "string", enum: ["gold", "silver"] },
      // Its enum would be `CustomerCreate`, the name of the create shape.
      create: { type: "string", enum: ["now", "later"] },
    },
    structures: { Address: { type: "object", properties: { country: { type: "string", enum: ["de", "fr"] } } } },
  }),
  "order.schema": type("Order", "1.0", {
    properties: {
      to: { type: "Address" },
      tier: { type: "CustomerTier" },
      extra: { type: "CustomerAddress" },
      meta: { type: "ApsMeta" },
    },
    structures: {
      Address: { type: "object", properties: { country: { type: "string", enum: ["us"] } } },
      // The name of the enum of Customer's `tier`.
      CustomerTier: { type: "object", properties: { size: { type: "integer" } } },
      // What Customer's `Address` becomes when prefixed.
      CustomerAddress: { type: "object", properties: { line: { type: "string" } } },
      // The name of a runtime type the module imports.
      ApsMeta: { type: "object", properties: { note: { type: "string" } } },
    },
  }),
  // Two versions of one type in the package, both with a `Quota` structure.
  "mailbox-1.schema": type("Mailbox", "1.0", {
    properties: { plan: { type: "string", enum: ["basic", "pro"] }, quota: { type: "Quota" } },
    structures: { Quota: { type: "object", properties: { mb: { type: "integer" } } } },
  }),
  "mailbox-2.schema": type("Mailbox", "2.0", {
    properties: { plan: { type: "string", enum: ["basic", "pro", "max"] }, quota: { type: "Quota" } },
    structures: { Quota: { type: "object", properties: { gb: { type: "integer" } } } },
    operations: {
      resize: {
        verb: "POST",
        path: "/resize",
        parameters: { to: { kind: "body", type: "Quota", required: true } },
        response: { type: "Quota" },
      },
    },
  }),
  // Its file name ends like a version's (`snap-v2`), but it has no second version.
  "snap.schema": type("SnapV2", "1.0", { properties: { size: { type: "integer" } } }),
};

function build() {
  const pkg = join(dir, "clash");
  mkdirSync(pkg, { recursive: true });
  for (const [file, schema] of Object.entries(schemas)) writeFileSync(join(pkg, file), JSON.stringify(schema, null, 2));
  const { model, diagnostics } = compile([pkg], { cwd: dir });
  return { model, diagnostics, files: emitAll(model) };
}

/** `export interface X`, `export type X` and `export const X` of a module, by kind. */
function declarations(text: string): { types: string[]; consts: string[] } {
  const types = [...text.matchAll(/^export (?:interface|type) ([A-Za-z0-9_$]+)/gm)].map((m) => m[1]!);
  const consts = [...text.matchAll(/^export const ([A-Za-z0-9_$]+)/gm)].map((m) => m[1]!);
  return { types, consts };
}

describe("names of a package's types module", () => {
  const { model, diagnostics, files } = build();
  const module = files.find((f) => f.path === "types/clash/index.gen.ts")!;

  it("is the only types file of the package", () => {
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(files.filter((f) => f.path.startsWith("types/clash/")).map((f) => f.path)).toEqual([
      "types/clash/index.gen.ts",
    ]);
  });

  it("declares each name once, and exactly the names of the name table", () => {
    const { types, consts } = declarations(module.content);
    expect(new Set(types).size).toBe(types.length);
    expect(new Set(consts).size).toBe(consts.length);
    // A const and a type of one name are an enum, nothing else.
    const enums = consts.filter((c) => types.includes(c));
    const names = buildNameTable(model);
    const table = model.packages.find((p) => p.name === "clash")!.typeIds.map((id) => declaredNames(names.get(id)!));
    const tableEnums = table.flatMap((t) => t.values.slice(1));
    expect(enums.sort()).toEqual([...tableEnums].sort());
    expect(new Set([...types, ...consts])).toEqual(new Set(table.flatMap((t) => [...t.types, ...t.values])));
  });

  it("prefixes a name two types declare with the type's name, as the package index exported it", () => {
    const { types, consts } = declarations(module.content);
    expect(types).toEqual(
      expect.arrayContaining([
        "OrderAddress",
        "Customer",
        "CustomerCreate",
        "OrderCustomerTier",
        "MailboxV1_0",
        "MailboxV2_0",
        "MailboxV2_0Create",
        "MailboxV1_0Quota",
        "MailboxV2_0Quota",
        "MailboxV2_0ResizeParams",
        "ApsMeta",
        "SnapV2",
        "SnapV2Create",
      ]),
    );
    expect(consts).toEqual(
      expect.arrayContaining([
        "CustomerCustomerTier",
        "CustomerCreate_2",
        "CustomerAddressCountry",
        "OrderAddressCountry",
        "MailboxV1_0Plan",
        "MailboxV2_0Plan",
        "MailboxV1_0TypeId",
        "MailboxV2_0TypeId",
      ]),
    );
    // Order declares `CustomerAddress` itself, so Customer's `Address` takes the next free name.
    expect(types).toEqual(expect.arrayContaining(["CustomerAddress", "CustomerAddress_2"]));
    expect(module.content).toMatch(/import type \{[^}]*ApsMeta as ApsMeta_2/);
  });

  it("is written as Prettier prints it, the same on a second build", async () => {
    expect(await prettier.format(module.content, { ...PRETTIER_OPTIONS, filepath: module.path })).toBe(module.content);
    expect(build().files.find((f) => f.path === module.path)!.content).toBe(module.content);
  });

  it("compiles, with the validators, client and connector that import it", () => {
    expect(typecheckEmitted(files, join(dir, "out"))).toEqual([]);
  }, 60_000);
});
