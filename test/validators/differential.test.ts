/**
 * Differential test of the generated validators against an independent oracle: every resource
 * type of the example packages (and of the core types that compile() adds), in both modes and
 * for both kinds of writer, gets RUNS random bodies from a fixed seed (helpers/property-runs.ts); the validators' verdict
 * (no errors) must equal ajv's verdict on the oracle's JSON Schema (oracle/json-schema.ts).
 * A mismatch fails with the (shrunk) body and both error lists.
 *
 * Not compared, on purpose (JSON Schema cannot say it; see the oracle): integers between 2^53
 * and 2^64 in magnitude, and arrays of structures whose JSON reaches 4000 characters.
 */
import fc from "fast-check";
import type { ErrorObject, ValidateFunction } from "ajv";
import { beforeAll, describe, expect, it } from "vitest";
import { compile } from "../../generator/pipeline.ts";
import type { ApsModel } from "../../generator/model/model.ts";
import { validators } from "../../generated/validators/index.gen.ts";
import { applicationActor, userActor, type Actor } from "../../runtime/common/actor.ts";
import type { TypeValidator } from "../../runtime/common/type-validator.ts";
import type { ValidationError } from "../../runtime/common/validation-error.ts";
import { repoRoot } from "../helpers/paths.ts";
import { propertyRuns } from "../helpers/property-runs.ts";
import { bodyArbitrary } from "./oracle/arbitraries.ts";
import { oracleAjv, typeSchema, type OracleActor, type OracleMode, type Schema } from "./oracle/json-schema.ts";

const PACKAGES = ["types/examples/cloudmail", "types/examples/vpscloud"];
const SEED = 0x5eed_2024;
const RUNS = propertyRuns(400);
const MODES: readonly OracleMode[] = ["create", "update"];
const ACTORS: readonly OracleActor[] = ["owner", "application"];
const MAILBOX = "http://cloudmail.example.com/types/mailbox/1.0";

const runtimeActor: Record<OracleActor, Actor> = { owner: userActor(["owner"]), application: applicationActor };

// Compiled once at load: describe.each needs the type list before the tests run.
const compiled = compile(PACKAGES, { cwd: repoRoot });
const model: ApsModel = compiled.model;
const resourceTypes = [...model.types.values()].filter((t) => t.isResource).map((t) => t.id);
const ajv = oracleAjv();

function ours(v: TypeValidator, mode: OracleMode, actor: OracleActor, body: unknown): ValidationError[] {
  return mode === "create" ? v.validateCreate(body, runtimeActor[actor]) : v.validateUpdate(body, runtimeActor[actor]);
}

/** Throws (so fast-check shrinks and reports) when the two verdicts differ. */
function assertAgree(
  v: TypeValidator,
  check: ValidateFunction,
  mode: OracleMode,
  actor: OracleActor,
  body: unknown,
): boolean {
  const errors = ours(v, mode, actor, body);
  const accepted = check(body);
  if ((errors.length === 0) === accepted) return accepted;
  throw new Error(
    [
      `verdicts differ (${mode}, ${actor}): validators ${errors.length === 0 ? "accept" : "reject"}, oracle ${accepted ? "accepts" : "rejects"}`,
      `body: ${JSON.stringify(body)}`,
      `validator errors: ${JSON.stringify(errors, null, 1)}`,
      `oracle errors: ${JSON.stringify(summarise(check.errors), null, 1)}`,
    ].join("\n"),
  );
}

function summarise(errors: ErrorObject[] | null | undefined): unknown[] {
  return (errors ?? []).map((e) => ({
    path: e.instancePath,
    keyword: e.keyword,
    params: e.params,
    message: e.message,
  }));
}

describe("oracle sanity (hand-written bodies)", () => {
  const check = (mode: OracleMode, actor: OracleActor, body: unknown) =>
    ajv.validate(typeSchema(model, MAILBOX, mode, actor) as object, body);
  const minimal = { localPart: "anna", password: "0123456789" };

  it("accepts a minimal mailbox and rejects what the APS rules forbid", () => {
    expect(check("create", "owner", minimal)).toBe(true);
    expect(
      check("create", "owner", { ...minimal, aps: { anything: [1] }, domain: { aps: { id: "d1" } }, user: null }),
    ).toBe(true);
    expect(check("create", "owner", { localPart: "anna" })).toBe(false); // required password
    expect(check("create", "owner", { ...minimal, password: null })).toBe(false); // required: null
    expect(check("create", "owner", { ...minimal, displayName: null })).toBe(true); // optional: null
    expect(check("create", "owner", { ...minimal, used: 1 })).toBe(false); // readonly
    expect(check("create", "application", { ...minimal, used: 1 })).toBe(true);
    expect(check("create", "owner", { ...minimal, supportNote: "x" })).toBe(false); // access: owner false
    expect(check("create", "owner", { ...minimal, nope: 1 })).toBe(false); // unknown
    expect(check("create", "owner", { ...minimal, localPart: "Anna" })).toBe(false); // pattern
    expect(check("create", "owner", { ...minimal, aliases: ["a", "a"] })).toBe(false); // uniqueItems
    expect(check("create", "owner", { ...minimal, quota: 1.5 })).toBe(false); // integer
    expect(check("create", "owner", { ...minimal, plan: "gold" })).toBe(false); // enum
    expect(check("create", "owner", { ...minimal, autoReply: { enabled: true, subject: null } })).toBe(false); // member null
    expect(check("create", "owner", { ...minimal, forwarding: [{ target: "a@b.c", extra: 1 }] })).toBe(false); // unknown member
    expect(check("create", "owner", { ...minimal, displayName: "😀".repeat(128) })).toBe(true); // code points
    expect(check("create", "owner", { ...minimal, domain: { id: "d1" } })).toBe(false); // not a link
    expect(check("create", "owner", [minimal])).toBe(false);
  });

  it("on update nothing is required, final is the application's, relations are unknown", () => {
    expect(check("update", "owner", {})).toBe(true);
    expect(check("update", "owner", { localPart: "anna" })).toBe(false);
    expect(check("update", "application", { localPart: "anna" })).toBe(true);
    expect(check("update", "owner", { domain: { aps: { id: "d1" } } })).toBe(false);
    expect(check("update", "owner", { password: null })).toBe(false);
  });
});

describe("validators agree with the JSON Schema oracle", () => {
  beforeAll(() => {
    expect(compiled.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(resourceTypes.length).toBeGreaterThanOrEqual(8);
  });

  const cases = resourceTypes.flatMap((typeId) =>
    MODES.flatMap((mode) => ACTORS.map((actor) => ({ typeId, name: typeId.replace(/^https?:\/\//, ""), mode, actor }))),
  );

  for (const { typeId, name, mode, actor } of cases)
    it(`${name} ${mode} ${actor}`, () => {
      const v = validators.get(typeId);
      if (v === undefined) throw new Error(`no generated validator for ${typeId}`);
      const check = ajv.compile(typeSchema(model, typeId, mode, actor) as object);
      let accepted = 0;
      let runs = 0;
      fc.assert(
        fc.property(bodyArbitrary(model, typeId, mode, actor), (body) => {
          runs++;
          if (assertAgree(v, check, mode, actor, body)) accepted++;
        }),
        { seed: SEED, numRuns: RUNS },
      );
      // Both verdicts must be well represented, or the comparison says little.
      expect(runs).toBeGreaterThanOrEqual(RUNS);
      expect(accepted).toBeGreaterThan(RUNS / 10);
      expect(runs - accepted).toBeGreaterThan(RUNS / 10);
    });
});

describe("the comparison can fail", () => {
  it("detects an oracle that forgets one required property", () => {
    const v = validators.get(MAILBOX);
    if (v === undefined) throw new Error(`no generated validator for ${MAILBOX}`);
    const schema = typeSchema(model, MAILBOX, "create", "owner") as Record<string, unknown>;
    const required = schema.required as string[];
    expect(required).toContain("password");
    const broken: Schema = { ...schema, required: required.filter((r) => r !== "password") };
    const check = ajv.compile(broken as object);
    const result = fc.check(
      fc.property(bodyArbitrary(model, MAILBOX, "create", "owner"), (body) => {
        assertAgree(v, check, "create", "owner", body);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect(result.failed).toBe(true);
    // Shrinking leads to a body whose only fault is the missing password.
    const [body] = result.counterexample ?? [];
    expect(ours(v, "create", "owner", body)).toEqual([
      expect.objectContaining({ code: "required", path: "/password" }),
    ]);
    expect(check(body)).toBe(true);
  });
});
