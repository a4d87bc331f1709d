/**
 * One member checker per declaring type (test/fixtures/emit/members): a subtype's validators call
 * the checkers of the types that declared its properties instead of repeating their checks, in
 * an order that gives every name to the declaration the subtype took it from.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { emitValidators } from "../../generator/emit/validators/emit-validators.ts";
import { perTypeValidatorModulePath } from "../../generator/emit/core/module-scope.ts";
import { buildNameTable } from "../../generator/emit/core/name-table.ts";
import { loadValidators } from "../../cli/validate/load-validators.ts";
import { compile } from "../../generator/pipeline.ts";
import { applicationActor, userActor } from "../../runtime/common/actor.ts";
import type { TypeValidator } from "../../runtime/common/type-validator.ts";
import type { ValidationError } from "../../runtime/common/validation-error.ts";
import { repoRoot } from "../helpers/paths.ts";

const T = (name: string) => `http://members.example/types/${name}/1.0`;
const owner = userActor(["owner"]);
const codes = (errors: readonly ValidationError[]) => errors.map((e) => `${e.path} ${e.code}`);
const { model, diagnostics } = compile(["test/fixtures/emit/members"], { cwd: repoRoot });
// A module per type, as the controller compiles them: what each type's validators hold.
const files = new Map(
  emitValidators(model, buildNameTable(model), { layout: perTypeValidatorModulePath }).map((f) => [f.path, f.content]),
);
const module = (name: string) => files.get(`validators/members/${name}.gen.ts`)!;

let child: TypeValidator;
let diamond: TypeValidator;
beforeAll(async () => {
  const validators = await loadValidators(model);
  child = validators.get(T("child"))!;
  diamond = validators.get(T("diamond"))!;
});

describe("member checkers", () => {
  it("compiles the fixture without errors", () => {
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });

  it("writes each declared member's checks once, in its declaring type's module", () => {
    expect(module("base")).toContain("export function baseMembers(");
    // A mixin that declares members gets a module for them although it has no instances.
    expect(module("tagged")).toContain("export function taggedMembers(");
    expect(module("child")).not.toContain('case "size"');
    expect(module("diamond")).not.toMatch(/case "(label|size|tag|note|peer)"/);
    // The create and update validators share the checkers.
    expect(
      module("diamond").match(
        /!taggedMembers\(key, v, actor, (true|false), errors\) &&\s+!childMembers\(key, v, actor, \1, errors\) &&\s+!baseMembers\(/g,
      ),
    ).toHaveLength(2);
  });

  it("writes them all into the package's module as `aps-gen build` does, each once", () => {
    const pkg = emitValidators(model).find((f) => f.path === "validators/members/index.gen.ts")!.content;
    for (const name of ["baseMembers", "taggedMembers", "childMembers"])
      expect(pkg.match(new RegExp(`^export function ${name}\\(`, "gm"))).toHaveLength(1);
    expect(pkg.match(/case "size"/g)).toHaveLength(
      module("base").match(/case "size"/g)!.length + module("tagged").match(/case "size"/g)!.length,
    );
    // Nothing is imported from another validators module: they are all here.
    expect(pkg).not.toMatch(/from "\.\//);
  });

  it("checks an overriding property by the subtype's declaration, not the one it overrides", () => {
    // base: label is at most 5 characters; child: final, required, lower-case letters, any length.
    expect(codes(child.validateCreate({ label: "abcdefgh", size: 1 }, owner))).toEqual([]);
    expect(codes(child.validateCreate({ label: "ABC", size: 1 }, owner))).toEqual(["/label pattern"]);
    expect(codes(child.validateUpdate({ label: "abc" }, owner))).toEqual(["/label final"]);
    expect(codes(child.validateUpdate({ label: "abc" }, applicationActor))).toEqual([]);
  });

  it("takes a name both parents declare from the first parent", () => {
    // diamond implements tagged first: its size is a string like "10g", not base's integer.
    expect(codes(diamond.validateCreate({ tag: "a", label: "x", size: "10g" }, owner))).toEqual([]);
    expect(codes(diamond.validateCreate({ tag: "a", label: "x", size: 10 }, owner))).toEqual(["/size type"]);
    // Inherited through child, from base: relations, read-only and access rules.
    expect(
      codes(diamond.validateCreate({ tag: "a", label: "x", note: "n", peer: { aps: { id: "p" } }, peers: {} }, owner)),
    ).toEqual(["/note readonly", "/peers type"]);
    expect(codes(diamond.validateUpdate({ peer: { aps: { id: "p" } }, tag: "c", nope: 1 }, owner))).toEqual([
      "/peer unknown",
      "/tag enum",
      "/nope unknown",
    ]);
    expect(codes(diamond.validateCreate({}, owner))).toEqual(["/tag required", "/label required"]);
  });
});
