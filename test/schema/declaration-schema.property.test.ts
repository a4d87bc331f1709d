/**
 * Issue 31: the declaration schema never marks as an error what the compiler accepts, over
 * random changes to a valid declaration: up to three attributes anywhere in it (types,
 * constraints, literals, operations, parameters, responses, relations, structures, misspelt and
 * unknown names) set to values right or wrong for them, or removed. Fixed seed, so a failure
 * reproduces; fast-check prints the smallest change that fails.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileDeclarations, decl, RESOURCE } from "../helpers/declarations.ts";
import { declarationSchemaValidator } from "./declaration-schema-validator.ts";
import { propertyRuns } from "../helpers/property-runs.ts";

const SEED = 310_031;
const RUNS = propertyRuns(600);

const validate = declarationSchemaValidator();

/**
 * A declaration the compiler accepts, using every kind of element: properties of each kind of
 * type with the constraints that fit them, a structure, a relation, operations with path, query
 * and body parameters, a typed and a non-JSON response.
 */
function valid(): Record<string, unknown> {
  return decl("Widget", {
    implements: [RESOURCE],
    access: { admin: true, owner: true },
    properties: {
      s: {
        type: "string",
        title: "S",
        minLength: 1,
        maxLength: 10,
        pattern: "^a+$",
        default: "aa",
        format: "version",
        required: true,
      },
      n: { type: "integer", default: 3, enum: [1, 3], enumTitles: ["one", "three"], unit: "item", readonly: true },
      l: { type: "array", items: { type: "string" }, minItems: 0, maxItems: 5, uniqueItems: true },
      r: { type: "S", access: { referrer: false } },
      b: { type: "boolean", default: false, final: true, headline: true },
    },
    structures: { S: { type: "object", properties: { x: { type: "string", encrypted: true } } } },
    relations: { owner: { type: "http://t.example/Other/1.0", required: true, collection: false } },
    operations: {
      act: {
        path: "/act/{id}",
        verb: "POST",
        static: false,
        parameters: {
          id: { kind: "path", type: "string", required: true },
          q: { kind: "query", type: "integer" },
          body: { kind: "body", type: "S" },
        },
        response: { type: "S" },
        errorResponse: { type: "object" },
        access: { admin: true },
      },
      dl: { path: "/download", verb: "GET", response: { contentType: "text/csv" }, errorResponse: { type: "object" } },
    },
  });
}

/** Places a change can land: every attribute of every element of `valid()`, and some that are not attributes. */
const SLOTS: readonly (readonly string[])[] = [
  ...["apsVersion", "id", "name", "implements", "required", "$schema", "Name", "acess"].map((a) => [a]),
  ...["s", "n", "l", "r", "b", "new"].flatMap((p) =>
    [
      "type",
      "items",
      "required",
      "readonly",
      "encrypted",
      "unit",
      "format",
      "pattern",
      "minLength",
      "maxLength",
      "minItems",
      "maxItems",
      "uniqueItems",
      "default",
      "enum",
      "enumTitles",
      "access",
      "requried",
      "minimum",
      "Type",
      "tpye",
      "x-vendor",
    ].map((a) => ["properties", p, a]),
  ),
  ...["type", "properties", "required", "Type"].map((a) => ["structures", "S", a]),
  ...["type", "encrypted", "items", "default"].map((a) => ["structures", "S", "properties", "x", a]),
  ...["type", "collection", "required", "tpye", "colection"].map((a) => ["relations", "owner", a]),
  ...["path", "verb", "static", "name", "response", "errorResponse", "parameters", "verbb"].flatMap((a) => [
    ["operations", "act", a],
    ["operations", "dl", a],
  ]),
  ...["id", "q", "body"].flatMap((p) =>
    ["kind", "type", "contentType", "items", "required", "knd"].map((a) => ["operations", "act", "parameters", p, a]),
  ),
  ...["type", "contentType", "items"].flatMap((a) => [
    ["operations", "act", "response", a],
    ["operations", "dl", "response", a],
    ["operations", "act", "errorResponse", a],
  ]),
];

/** Values a change sets: right ones for some slots, wrong ones for others. */
const VALUES: readonly unknown[] = [
  "string",
  "integer",
  "number",
  "boolean",
  "object",
  "array",
  "self",
  "long",
  "S",
  "Unknown",
  "#X",
  "http://t.example/Other/1.0",
  "http://t.example/Other/1.0#X",
  "http://t.example/Widget/1.0#S",
  "list of",
  "",
  "GET",
  "get",
  "PUT",
  "/a",
  "a",
  "/",
  "/a/{id}",
  "/a//b",
  "/a?b",
  "path",
  "query",
  "body",
  "header",
  "text/csv",
  "application/json",
  "text/plain",
  "Application/JSON; charset=utf-8",
  "image/png",
  "item",
  "MB",
  "kb",
  "unit-h",
  "date",
  "phone",
  "^a+$",
  "[a-",
  "aa",
  "2.0",
  "1.0",
  "Widget",
  "my widget",
  "http://t.example/Widget/01",
  true,
  false,
  null,
  0,
  1,
  3,
  -1,
  2.5,
  5000,
  "x".repeat(4001),
  [],
  ["a"],
  ["aa", "a"],
  ["a", "a"],
  [1, 3],
  [1, 1],
  [true],
  [{}],
  ["one", "two"],
  {},
  { type: "string" },
  { type: "array", items: { type: "string" } },
  { type: "integer", items: { type: "string" } },
  { admin: true },
  { root: true },
  { owner: "yes" },
  { type: "object" },
  { contentType: "image/png" },
  { type: "string", contentType: "text/plain" },
  { type: "object", contentType: "text/csv" },
  { kind: "query", type: "string" },
  { kind: "body" },
];

const change = fc.record({ slot: fc.constantFrom(...SLOTS), value: fc.constantFrom(...VALUES), remove: fc.boolean() });

/** `valid()` with each change made: a value set, or the attribute removed. */
const declaration = fc.array(change, { minLength: 0, maxLength: 3 }).map((changes) => {
  const d = valid();
  for (const { slot, value, remove } of changes) {
    let at: Record<string, unknown> = d;
    for (const key of slot.slice(0, -1)) {
      const next = at[key];
      if (next === null || typeof next !== "object" || Array.isArray(next)) at[key] = {};
      at = at[key] as Record<string, unknown>;
    }
    const last = slot.at(-1)!;
    if (remove) delete at[last];
    else at[last] = structuredClone(value);
  }
  return d;
});

describe("the declaration schema over random declarations", () => {
  it("accepts every declaration the compiler accepts", () => {
    let accepted = 0;
    let rejected = 0;
    let flagged = 0;
    fc.assert(
      fc.property(declaration, (d) => {
        const { diagnostics } = compileDeclarations([d], { core: false });
        const compilerAccepts = !diagnostics.some((x) => x.severity === "error");
        const schemaAccepts = validate(d);
        if (compilerAccepts) {
          accepted++;
          expect(validate.errors ?? [], JSON.stringify(d)).toEqual([]);
        } else {
          rejected++;
          if (!schemaAccepts) flagged++;
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Both outcomes occur, so the property says something.
    expect(accepted).toBeGreaterThan(RUNS / 5);
    expect(rejected).toBeGreaterThan(RUNS / 5);
    console.log(
      `declaration schema, random declarations: ${accepted} accepted by the compiler (all valid), ${rejected} rejected, ${flagged} of them flagged by the schema`,
    );
  }, 120_000);
});
