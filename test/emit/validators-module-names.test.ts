import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as prettier from "prettier";
import { afterAll, describe, expect, it } from "vitest";
import { compileValidatorScripts, instantiateValidatorScripts } from "../../cli/validate/load-validators.ts";
import { emitAll } from "../../generator/build.ts";
import { PRETTIER_OPTIONS } from "../../generator/emit/core/format-options.ts";
import { buildNameTable } from "../../generator/emit/core/name-table.ts";
import { compile } from "../../generator/pipeline.ts";
import { userActor } from "../../runtime/common/actor.ts";
import { typecheckEmitted } from "../helpers/typecheck.ts";

/**
 * One validators module per package declares the validators of every type of the package, so
 * every name in it must be unique: the checker of structure `BarBaz` of `Foo` and that of `Baz`
 * of `FooBar` would both be `checkFooBarBaz`. The name table makes them unique; this package
 * tries to make them clash.
 */
const dir = mkdtempSync(join(tmpdir(), "aps-validators-names-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RESOURCE = "http://aps-standard.org/types/core/resource/1.0";
const id = (name: string) => `http://vclash.example/types/${name.toLowerCase()}/1.0`;
const type = (name: string, rest: object) => ({
  apsVersion: "2.0",
  name,
  id: id(name),
  implements: [RESOURCE],
  ...rest,
});
const text = { type: "string", maxLength: 3 };
const op = (path: string, parameters: object = { q: { kind: "query", type: "integer", required: true } }) => ({
  verb: "GET",
  path,
  parameters,
});

const schemas: Record<string, object> = {
  "foo.schema": type("Foo", {
    properties: { a: text, barBaz: { type: "BarBaz" }, members: { type: "Members" } },
    structures: {
      // `checkFooBarBaz`, as `Baz` of FooBar.
      BarBaz: { type: "object", properties: { z: text } },
      // `checkFooMembers`, the member checker of CheckFoo.
      Members: { type: "object", properties: { m: text } },
    },
    operations: {
      // `parseFooBarQuery`, as FooBar's `query`.
      barQuery: op("/barQuery"),
      // `parseFooValidator` and `parseFooMembers`: the validator and the member checker of ParseFoo.
      validator: op("/validator"),
      members: op("/members"),
    },
  }),
  "foobar.schema": type("FooBar", {
    properties: { b: text, baz: { type: "Baz" } },
    structures: { Baz: { type: "object", properties: { w: text } } },
    operations: { query: op("/query") },
  }),
  // `checkQuxBar`, twice in one type: `Bar` takes the type's name in front, `QuxBar` has it.
  "qux.schema": type("Qux", {
    properties: { bar: { type: "Bar" }, quxBar: { type: "QuxBar" } },
    structures: {
      Bar: { type: "object", properties: { x: text } },
      QuxBar: { type: "object", properties: { y: text } },
    },
  }),
  "checkfoo.schema": type("CheckFoo", { properties: { c: text } }),
  "parsefoo.schema": type("ParseFoo", { properties: { p: text } }),
  // `checkLinkRef`, the runtime's link checker, which its relation needs.
  "link.schema": type("Link", {
    properties: { ref: { type: "Ref" } },
    structures: { Ref: { type: "object", properties: { r: text } } },
    relations: { foo: { type: id("Foo"), required: false, collection: false } },
  }),
};

function build() {
  const pkg = join(dir, "vclash");
  mkdirSync(pkg, { recursive: true });
  for (const [file, schema] of Object.entries(schemas)) writeFileSync(join(pkg, file), JSON.stringify(schema, null, 2));
  const { model, diagnostics } = compile([pkg], { cwd: dir });
  return { model, diagnostics, files: emitAll(model) };
}

/** The top-level `export function X` and `export const X` of a module. */
function declarations(text: string): string[] {
  return [...text.matchAll(/^export (?:function|const) ([A-Za-z0-9_$]+)/gm)].map((m) => m[1]!);
}

describe("names of a package's validators module", () => {
  const { model, diagnostics, files } = build();
  const module = files.find((f) => f.path === "validators/vclash/index.gen.ts")!;

  it("is the only validators file of the package", () => {
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(files.filter((f) => f.path.startsWith("validators/vclash/")).map((f) => f.path)).toEqual([
      "validators/vclash/index.gen.ts",
    ]);
  });

  it("declares each name once, and exactly the names of the name table", () => {
    const declared = declarations(module.content);
    expect(new Set(declared).size).toBe(declared.length);
    const names = buildNameTable(model);
    const table = model.packages
      .find((p) => p.name === "vclash")!
      .typeIds.flatMap((t) => {
        const v = names.get(t)!.validators;
        return [
          ...v.structures.values(),
          ...(v.members ? [v.members] : []),
          ...v.parsers.values(),
          ...(v.create ? [v.create, v.update!, v.validator!] : []),
        ];
      });
    expect(new Set(table).size).toBe(table.length);
    expect(new Set(declared)).toEqual(new Set(table));
  });

  it("keeps the first of two equal names, numbers the others", () => {
    const declared = declarations(module.content);
    // In the package's order (its files' names): CheckFoo, Foo, FooBar, Link, ParseFoo, Qux.
    const pairs = {
      checkFooMembers: ["checkfoo", "foo"],
      checkFooBarBaz: ["foo", "foobar"],
      parseFooBarQuery: ["foo", "foobar"],
      parseFooValidator: ["foo", "parsefoo"],
      parseFooMembers: ["foo", "parsefoo"],
      checkQuxBar: ["qux", "qux"],
    };
    const names = buildNameTable(model);
    const all = (t: string) => {
      const v = names.get(id(t))!.validators;
      return [...v.structures.values(), v.members, ...v.parsers.values(), v.validator];
    };
    for (const [name, [first, second]] of Object.entries(pairs)) {
      expect(declared).toEqual(expect.arrayContaining([name, `${name}_2`]));
      expect(all(first!)).toContain(name);
      expect(all(second!)).toContain(`${name}_2`);
    }
    expect(declared).toEqual(expect.arrayContaining(["checkLinkRef", "linkMembers"]));
    // The runtime's checkLinkRef is imported under another name.
    expect(module.content).toMatch(/import \{ checkLinkRef as checkLinkRef_2 \}/);
    // No other validators module: nothing imported from one.
    expect(module.content).not.toMatch(/from "\.\//);
  });

  it("is written as Prettier prints it, the same on a second build", async () => {
    expect(await prettier.format(module.content, { ...PRETTIER_OPTIONS, filepath: module.path })).toBe(module.content);
    expect(build().files.find((f) => f.path === module.path)!.content).toBe(module.content);
  });

  it("validates as the module per type the controller compiles at run time", async () => {
    const scripts = await compileValidatorScripts(model);
    expect(
      scripts
        .map((s) => s.name)
        .filter((n) => n.startsWith("validators/vclash/"))
        .sort(),
    ).toEqual(
      ["check-foo", "foo-bar", "foo", "link", "parse-foo", "qux"].map((n) => `validators/vclash/${n}.gen.js`).sort(),
    );
    const validators = await instantiateValidatorScripts(scripts);
    const owner = userActor(["owner"]);
    const paths = (t: string, body: object) =>
      validators
        .get(id(t))!
        .validateCreate(body, owner)
        .map((e) => e.path);
    expect(paths("Foo", { a: "abcd", barBaz: { z: "abcd" }, members: { m: "abcd" } })).toEqual([
      "/a",
      "/barBaz/z",
      "/members/m",
    ]);
    expect(paths("Qux", { bar: { x: "abcd" }, quxBar: { y: "abcd" } })).toEqual(["/bar/x", "/quxBar/y"]);
    expect(paths("CheckFoo", { c: "abcd" })).toEqual(["/c"]);
    expect(paths("FooBar", { baz: { w: "abcd" } })).toEqual(["/baz/w"]);
    expect(paths("Link", { ref: { r: "abcd" }, foo: 1 })).toEqual(["/ref/r", "/foo"]);
    const parse = validators.get(id("Foo"))!.operations;
    for (const name of ["barQuery", "validator", "members"])
      expect(parse[name]!({ path: {}, query: { q: "x" } }).ok).toBe(false);
  });

  it("compiles, with the types, client and connector", () => {
    expect(typecheckEmitted(files, join(dir, "out"))).toEqual([]);
  }, 60_000);
});
