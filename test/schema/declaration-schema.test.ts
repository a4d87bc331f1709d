/**
 * Issue 31: the JSON Schema editors use for declaration files (schema/aps-declaration.schema.json)
 * agrees with the compiler. Every declaration the compiler accepts (the repository's examples and
 * fixtures, and the corpus of real packages) validates; each small bad declaration below is
 * rejected by both, the compiler with its code and the schema at the place to fix; declarations
 * the compiler only warns about validate. The file is what its source builds.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { ErrorObject } from "ajv";
import { parse, type ParseError } from "jsonc-parser";
import { describe, expect, it } from "vitest";
import { closestMatch } from "../../generator/diagnostics/did-you-mean.ts";
import type { AttributeSpec } from "../../generator/load/attributes.ts";
import {
  ITEMS_ATTRIBUTES,
  OPERATION_ATTRIBUTES,
  PARAMETER_ATTRIBUTES,
  PROPERTY_ATTRIBUTES,
  RELATION_ATTRIBUTES,
  RESPONSE_ATTRIBUTES,
  STRUCTURE_ATTRIBUTES,
  TYPE_ATTRIBUTES,
} from "../../generator/model/read-declaration.ts";
import { compile } from "../../generator/pipeline.ts";
import { declarationSchema, declarationSchemaText, misspelling } from "../../generator/schema/declaration-schema.ts";
import { compileDeclarations, decl, RESOURCE } from "../helpers/declarations.ts";
import { declarationSchemaValidator, SCHEMA_FILE } from "./declaration-schema-validator.ts";
import { corpusAvailable, corpusRoot, corpusSkipReason, repoRoot } from "../helpers/paths.ts";

const schemaText = readFileSync(SCHEMA_FILE, "utf8");

const validate = declarationSchemaValidator(schemaText);

function schemaErrors(value: unknown): ErrorObject[] {
  return validate(value) ? [] : [...(validate.errors ?? [])];
}

function declarationFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (path: string) => {
    for (const name of readdirSync(path)) {
      const p = join(path, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.schema(\.gen)?$/.test(name)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/**
 * The files the compiler accepts, each folder compiled on its own (the bundled core beside it,
 * except for the core itself), and the schema's complaints about them.
 */
function acceptedAndSchemaErrors(files: readonly string[]): {
  accepted: string[];
  rejected: string[];
  complaints: string[];
} {
  const accepted: string[] = [];
  const rejected: string[] = [];
  for (const dir of new Set(files.map((f) => dirname(f)))) {
    const isCore = resolve(dir) === resolve(repoRoot, "types/core");
    const { diagnostics } = compile([dir], { cwd: repoRoot, includeCore: !isCore });
    const withErrors = new Set(diagnostics.filter((d) => d.severity === "error").map((d) => resolve(repoRoot, d.file)));
    for (const f of files.filter((file) => dirname(file) === dir)) (withErrors.has(f) ? rejected : accepted).push(f);
  }
  const complaints: string[] = [];
  for (const f of accepted) {
    const errors: ParseError[] = [];
    const value = parse(readFileSync(f, "utf8"), errors, { allowTrailingComma: false }) as unknown;
    expect(errors, f).toEqual([]);
    for (const e of schemaErrors(value))
      complaints.push(`${relative(repoRoot, f)}: ${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
  }
  return { accepted, rejected, complaints };
}

describe("the declaration schema file", () => {
  it("is what generator/schema/declaration-schema.ts builds (else run npm run build:schema)", () => {
    expect(schemaText).toBe(declarationSchemaText(declarationSchema()));
  });

  it("is draft-07 and describes every attribute it declares", () => {
    const schema = JSON.parse(schemaText) as {
      $schema: string;
      properties: Record<string, { description?: string }>;
      definitions: Record<string, { properties?: Record<string, { description?: string }> }>;
    };
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    const undescribed: string[] = [];
    const elements = {
      type: schema.properties,
      ...Object.fromEntries(Object.entries(schema.definitions).map(([k, v]) => [k, v.properties ?? {}])),
    };
    for (const [element, attributes] of Object.entries(elements)) {
      for (const [name, s] of Object.entries(attributes))
        if (typeof s.description !== "string" || s.description.length < 10) undescribed.push(`${element}.${name}`);
    }
    expect(undescribed).toEqual([]);
    // The compiler's attribute lists are all there (a new attribute needs a schema and a description).
    expect(Object.keys(schema.definitions.property!.properties!)).toEqual(
      expect.arrayContaining(Object.keys(PROPERTY_ATTRIBUTES)),
    );
    expect(Object.keys(schema.definitions.operation!.properties!)).toEqual(
      expect.arrayContaining(Object.keys(OPERATION_ATTRIBUTES)),
    );
  });
});

describe("declarations the compiler accepts validate against the schema", () => {
  it("every declaration of types/ and test/fixtures/ the compiler accepts", () => {
    const files = [...declarationFiles(join(repoRoot, "types")), ...declarationFiles(join(repoRoot, "test/fixtures"))];
    const { accepted, rejected, complaints } = acceptedAndSchemaErrors(files);
    // The examples and the core are there, and the rule fixtures are rejected (so "accepted" means something).
    expect(accepted.length).toBeGreaterThan(80);
    expect(accepted.some((f) => f.includes("types/core/"))).toBe(true);
    expect(rejected.some((f) => f.includes("fixtures/check/unknown-format"))).toBe(true);
    expect(complaints).toEqual([]);
    console.log(
      `declaration schema: ${accepted.length} accepted declarations of the repository validate (${rejected.length} rejected by the compiler, not checked)`,
    );
  });

  it.skipIf(!corpusAvailable)(`every declaration of the corpus the compiler accepts${corpusSkipReason}`, () => {
    const files = declarationFiles(corpusRoot);
    const { accepted, complaints } = acceptedAndSchemaErrors(files);
    expect(files.length).toBeGreaterThan(0);
    expect(complaints).toEqual([]);
    console.log(
      `declaration schema: ${accepted.length} of ${files.length} corpus declarations accepted by the compiler, all validate`,
    );
  });
});

/** A declaration of one resource type with the given members. */
const widget = (extra: Record<string, unknown>) => decl("Widget", { implements: [RESOURCE], ...extra });
const withProperty = (attrs: Record<string, unknown>, name = "p") => widget({ properties: { [name]: attrs } });
const withOperation = (op: Record<string, unknown>) =>
  widget({
    operations: {
      act: { path: "/act", verb: "POST", response: { type: "object" }, errorResponse: { type: "object" }, ...op },
    },
  });
const withParameter = (param: Record<string, unknown>) => withOperation({ parameters: { x: param } });

interface BadCase {
  readonly why: string;
  readonly declaration: Record<string, unknown>;
  /** The compiler's error code. */
  readonly code: string;
  /** Where the schema complains (ajv's instancePath) and with which keyword. */
  readonly at: string;
  readonly keyword: string;
}

const BAD: readonly BadCase[] = [
  {
    why: "apsVersion is not 2.0",
    declaration: { ...widget({}), apsVersion: "1.0" },
    code: "APS020",
    at: "/apsVersion",
    keyword: "const",
  },
  {
    why: "the type id is https",
    declaration: { ...widget({}), id: "https://t.example/Widget/1.0" },
    code: "APS021",
    at: "/id",
    keyword: "pattern",
  },
  {
    why: "the type id's version has a leading zero",
    declaration: { ...widget({}), id: "http://t.example/Widget/1.01" },
    code: "APS021",
    at: "/id",
    keyword: "pattern",
  },
  {
    why: "the type id has no version",
    declaration: { ...widget({}), id: "http://t.example/Widget" },
    code: "APS021",
    at: "/id",
    keyword: "pattern",
  },
  {
    why: "the type name has a space",
    declaration: { ...widget({}), name: "My Widget" },
    code: "APS022",
    at: "/name",
    keyword: "pattern",
  },
  {
    why: "implements is a string",
    declaration: { ...widget({}), implements: RESOURCE },
    code: "APS023",
    at: "/implements",
    keyword: "type",
  },
  {
    why: "required is a list on a property",
    declaration: withProperty({ type: "string", required: ["p"] }),
    code: "APS027",
    at: "/properties/p/required",
    keyword: "type",
  },
  {
    why: "an attribute in other letter case",
    declaration: withProperty({ type: "string", Required: true }),
    code: "APS031",
    at: "/properties/p/Required",
    keyword: "not",
  },
  {
    why: "an attribute one letter off",
    declaration: withProperty({ type: "string", requird: true }),
    code: "APS031",
    at: "/properties/p/requird",
    keyword: "not",
  },
  {
    why: "an attribute with two letters swapped",
    declaration: withProperty({ type: "string", requried: true }),
    code: "APS031",
    at: "/properties/p/requried",
    keyword: "not",
  },
  {
    why: "a misspelt operation attribute",
    declaration: withOperation({ verbb: "GET" }),
    code: "APS031",
    at: "/operations/act/verbb",
    keyword: "not",
  },
  {
    why: "a property name with a dash",
    declaration: withProperty({ type: "string" }, "disk-quota"),
    code: "APS040",
    at: "/properties",
    keyword: "propertyNames",
  },
  {
    why: "a property without type",
    declaration: withProperty({ description: "no type" }),
    code: "APS041",
    at: "/properties/p",
    keyword: "required",
  },
  {
    why: "a property of type long",
    declaration: withProperty({ type: "long" }),
    code: "APS042",
    at: "/properties/p/type",
    keyword: "not",
  },
  {
    why: "a type that is no name",
    declaration: withProperty({ type: "list of strings" }),
    code: "APS042",
    at: "/properties/p/type",
    keyword: "pattern",
  },
  {
    why: "an array without items",
    declaration: withProperty({ type: "array" }),
    code: "APS043",
    at: "/properties/p",
    keyword: "required",
  },
  {
    why: "an array of arrays",
    declaration: withProperty({ type: "array", items: { type: "array", items: { type: "string" } } }),
    code: "APS044",
    at: "/properties/p/items/type",
    keyword: "not",
  },
  {
    why: "a unit in upper case",
    declaration: withProperty({ type: "integer", unit: "MB" }),
    code: "APS045",
    at: "/properties/p/unit",
    keyword: "enum",
  },
  {
    why: "an unknown format",
    declaration: withProperty({ type: "string", format: "phone" }),
    code: "APS046",
    at: "/properties/p/format",
    keyword: "enum",
  },
  {
    why: "a pattern that is no regular expression",
    declaration: withProperty({ type: "string", pattern: "[a-" }),
    code: "APS048",
    at: "/properties/p/pattern",
    keyword: "format",
  },
  {
    why: "maxLength on an integer",
    declaration: withProperty({ type: "integer", maxLength: 5 }),
    code: "APS049",
    at: "/properties/p/maxLength",
    keyword: "type",
  },
  {
    why: "minItems on a string",
    declaration: withProperty({ type: "string", minItems: 1 }),
    code: "APS049",
    at: "/properties/p/minItems",
    keyword: "type",
  },
  {
    why: "uniqueItems on a structure",
    declaration: widget({
      structures: { S: { type: "object", properties: {} } },
      properties: { p: { type: "S", uniqueItems: true } },
    }),
    code: "APS049",
    at: "/properties/p/uniqueItems",
    keyword: "enum",
  },
  {
    why: "a negative minLength",
    declaration: withProperty({ type: "string", minLength: -1 }),
    code: "APS050",
    at: "/properties/p/minLength",
    keyword: "minimum",
  },
  {
    why: "maxLength beyond 4000",
    declaration: withProperty({ type: "string", maxLength: 5000 }),
    code: "APS050",
    at: "/properties/p/maxLength",
    keyword: "maximum",
  },
  {
    why: "a string default on an integer",
    declaration: withProperty({ type: "integer", default: "5" }),
    code: "APS051",
    at: "/properties/p/default",
    keyword: "type",
  },
  {
    why: "an object default on a boolean",
    declaration: withProperty({ type: "boolean", default: {} }),
    code: "APS051",
    at: "/properties/p/default",
    keyword: "type",
  },
  {
    why: "an empty enum",
    declaration: withProperty({ type: "string", enum: [] }),
    code: "APS052",
    at: "/properties/p/enum",
    keyword: "minItems",
  },
  {
    why: "a repeated enum value",
    declaration: withProperty({ type: "string", enum: ["a", "a"] }),
    code: "APS052",
    at: "/properties/p/enum",
    keyword: "uniqueItems",
  },
  {
    why: "a number in a string enum",
    declaration: withProperty({ type: "string", enum: ["a", 1] }),
    code: "APS052",
    at: "/properties/p/enum/1",
    keyword: "type",
  },
  {
    why: "enumTitles without enum",
    declaration: withProperty({ type: "string", enumTitles: ["A"] }),
    code: "APS053",
    at: "/properties/p",
    keyword: "required",
  },
  {
    why: "a default longer than 4000 characters",
    declaration: withProperty({ type: "string", default: "x".repeat(4001) }),
    code: "APS055",
    at: "/properties/p/default",
    keyword: "maxLength",
  },
  {
    why: "an unknown access role",
    declaration: withProperty({ type: "string", access: { root: true } }),
    code: "APS056",
    at: "/properties/p/access",
    keyword: "propertyNames",
  },
  {
    why: "an access role that is not a boolean",
    declaration: widget({ access: { admin: "yes" } }),
    code: "APS056",
    at: "/access/admin",
    keyword: "type",
  },
  {
    why: "items beside a string type",
    declaration: withProperty({ type: "string", items: { type: "string" } }),
    code: "APS058",
    at: "/properties/p/items",
    keyword: "type",
  },
  {
    why: "a relation name with a space",
    declaration: widget({ relations: { "my account": { type: "http://aps-standard.org/types/core/account/1.0" } } }),
    code: "APS070",
    at: "/relations",
    keyword: "propertyNames",
  },
  {
    why: "a relation without type",
    declaration: widget({ relations: { account: { collection: false } } }),
    code: "APS071",
    at: "/relations/account",
    keyword: "required",
  },
  {
    why: "a relation to a primitive",
    declaration: widget({ relations: { account: { type: "string" } } }),
    code: "APS073",
    at: "/relations/account/type",
    keyword: "pattern",
  },
  {
    why: "a verb in lower case",
    declaration: withOperation({ verb: "get" }),
    code: "APS080",
    at: "/operations/act/verb",
    keyword: "enum",
  },
  {
    why: "an operation without verb",
    declaration: widget({ operations: { act: { path: "/act" } } }),
    code: "APS080",
    at: "/operations/act",
    keyword: "required",
  },
  {
    why: "a path with a query string",
    declaration: withOperation({ path: "/act?x=1" }),
    code: "APS081",
    at: "/operations/act/path",
    keyword: "pattern",
  },
  {
    why: "a path with an empty segment",
    declaration: withOperation({ path: "/a//b" }),
    code: "APS081",
    at: "/operations/act/path",
    keyword: "pattern",
  },
  {
    why: "an operation without path",
    declaration: widget({ operations: { act: { verb: "GET" } } }),
    code: "APS081",
    at: "/operations/act",
    keyword: "required",
  },
  {
    why: "a parameter of kind header",
    declaration: withParameter({ kind: "header", type: "string" }),
    code: "APS087",
    at: "/operations/act/parameters/x/kind",
    keyword: "enum",
  },
  {
    why: "a query parameter of a structure type",
    declaration: widget({
      structures: { F: { type: "object", properties: {} } },
      operations: {
        act: {
          path: "/act",
          verb: "GET",
          parameters: { f: { kind: "query", type: "F" } },
          response: { type: "object" },
          errorResponse: { type: "object" },
        },
      },
    }),
    code: "APS088",
    at: "/operations/act/parameters/f/type",
    keyword: "pattern",
  },
  {
    why: "a path parameter of an external type",
    declaration: withOperation({
      path: "/act/{x}",
      parameters: { x: { kind: "path", type: "http://other.example/types/thing/1.0" } },
    }),
    code: "APS088",
    at: "/operations/act/parameters/x/type",
    keyword: "pattern",
  },
  {
    why: "a body with a type and a CSV content type",
    declaration: withParameter({ kind: "body", type: "object", contentType: "text/csv" }),
    code: "APS089",
    at: "/operations/act/parameters/x/contentType",
    keyword: "pattern",
  },
  {
    why: "a response with a type and an image content type",
    declaration: withOperation({ response: { type: "object", contentType: "image/png" } }),
    code: "APS089",
    at: "/operations/act/response/contentType",
    keyword: "pattern",
  },
  {
    why: "a string response beside a CSV content type",
    declaration: withOperation({ response: { type: "string", contentType: "text/csv" } }),
    code: "APS089",
    at: "/operations/act/response/contentType",
    keyword: "pattern",
  },
  {
    why: "an error response with a content type",
    declaration: withOperation({ errorResponse: { contentType: "text/plain" } }),
    code: "APS090",
    at: "/operations/act/errorResponse/contentType",
    keyword: "type",
  },
  {
    why: "a query parameter with a content type",
    declaration: withParameter({ kind: "query", contentType: "text/plain" }),
    code: "APS091",
    at: "/operations/act/parameters/x/contentType",
    keyword: "type",
  },
  {
    why: "a structure name with a dash",
    declaration: widget({ structures: { "my-struct": { type: "object", properties: {} } } }),
    code: "APS110",
    at: "/structures",
    keyword: "propertyNames",
  },
  {
    why: "a structure of type array",
    declaration: widget({ structures: { S: { type: "array", properties: {} } } }),
    code: "APS111",
    at: "/structures/S/type",
    keyword: "const",
  },
];

describe("declarations the compiler rejects are flagged by the schema", () => {
  it.each(BAD)("$code: $why", ({ declaration, code, at, keyword }) => {
    const { diagnostics } = compileDeclarations([declaration]);
    expect(diagnostics.filter((d) => d.severity === "error").map((d) => d.code)).toContain(code);
    const errors = schemaErrors(declaration);
    const found = errors.some((e) => e.instancePath === at && e.keyword === keyword);
    expect(found, `schema errors: ${errors.map((e) => `${e.instancePath} ${e.keyword}`).join("; ")}`).toBe(true);
  });
});

/** Declarations the compiler accepts with a warning: the schema must accept them too (VS Code shows its own warning for some). */
const WARNED: readonly {
  readonly why: string;
  readonly declaration: Record<string, unknown>;
  readonly code: string;
}[] = [
  { why: "an unknown attribute", declaration: withProperty({ type: "string", "x-vendor": 1 }), code: "APS026" },
  {
    why: "minimum on an integer (not APS)",
    declaration: withProperty({ type: "integer", minimum: 0 }),
    code: "APS026",
  },
  {
    why: "a JSON Schema required list on the type",
    declaration: { ...widget({ properties: { p: { type: "string" } } }), required: ["p"] },
    code: "APS026",
  },
  {
    why: "a short word two letters off (not taken for a misspelling)",
    declaration: withProperty({ type: "string", tpye: "x" }),
    code: "APS026",
  },
  { why: "format on an integer", declaration: withProperty({ type: "integer", format: "date" }), code: "APS047" },
  {
    why: "a JSON content type beside a type",
    declaration: withParameter({ kind: "body", type: "object", contentType: "application/json; charset=utf-8" }),
    code: "APS098",
  },
  {
    why: "a JSON content type beside a response type",
    declaration: withOperation({ response: { type: "object", contentType: "text/json" } }),
    code: "APS098",
  },
  { why: "an operation name other than its key", declaration: withOperation({ name: "other" }), code: "APS094" },
  { why: "a parameter without type", declaration: withParameter({ kind: "query" }), code: "APS096" },
  {
    why: "a structure reference without type id (left to another package)",
    declaration: withProperty({ type: "#Counter" }),
    code: "APS025",
  },
  {
    why: "a query parameter of such a reference",
    declaration: withParameter({ kind: "query", type: "vendor#Filter" }),
    code: "APS025",
  },
  {
    why: "a property typed by an external type id",
    declaration: withProperty({ type: "http://other.example/types/thing/1.0#Spec", maxLength: 3 }),
    code: "APS025",
  },
];

describe("declarations the compiler only warns about validate", () => {
  it.each(WARNED)("$code: $why", ({ declaration, code }) => {
    const { diagnostics } = compileDeclarations([declaration]);
    expect(diagnostics.filter((d) => d.severity === "error").map((d) => `${d.code} ${d.message}`)).toEqual([]);
    expect(diagnostics.map((d) => d.code)).toContain(code);
    expect(schemaErrors(declaration)).toEqual([]);
  });

  it("accepts null for attributes the compiler reads as absent (aps build writes them), and a text reply", () => {
    const declaration = widget({
      description: null,
      properties: {
        p: {
          type: "string",
          format: null,
          unit: null,
          default: null,
          enum: null,
          items: null,
          minLength: null,
          access: null,
        },
      },
      operations: {
        act: {
          path: "/act",
          verb: "POST",
          parameters: { x: { kind: "query", type: "string", contentType: null } },
          response: { type: "object", contentType: null, items: null },
          errorResponse: { type: "object", contentType: null },
        },
        // A string beside text/plain is a text reply (what `aps build` writes for @return(string, text/plain)).
        text: {
          path: "/text",
          verb: "GET",
          response: { type: "string", contentType: "text/plain; charset=utf-8" },
          errorResponse: { type: "object" },
        },
      },
    });
    const { diagnostics } = compileDeclarations([declaration]);
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(schemaErrors(declaration)).toEqual([]);
  });
});

describe("misspelt attribute names", () => {
  /** Every key one edit (or one swap) away from `name`, over letters and the case of each. */
  function nearMisses(name: string): string[] {
    const letters = "abcdefghijklmnopqrstuvwxyzAEIT_".split("");
    const out = new Set<string>([name.toUpperCase(), name.toLowerCase()]);
    for (let i = 0; i <= name.length; i++) {
      if (i < name.length) out.add(name.slice(0, i) + name.slice(i + 1));
      if (i + 1 < name.length) out.add(name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2));
      for (const c of letters) {
        out.add(name.slice(0, i) + c + name.slice(i));
        if (i < name.length) out.add(name.slice(0, i) + c + name.slice(i + 1));
      }
    }
    return [...out];
  }

  type Element = { properties: Record<string, unknown>; patternProperties: Record<string, unknown> };
  const schema = JSON.parse(schemaText) as Element & { definitions: Record<string, Element> };
  const elements: [string, Element, AttributeSpec][] = [
    ["type", schema, TYPE_ATTRIBUTES],
    ["property", schema.definitions.property!, PROPERTY_ATTRIBUTES],
    ["items", schema.definitions.items!, ITEMS_ATTRIBUTES],
    ["relation", schema.definitions.relation!, RELATION_ATTRIBUTES],
    ["operation", schema.definitions.operation!, OPERATION_ATTRIBUTES],
    ["parameter", schema.definitions.parameter!, PARAMETER_ATTRIBUTES],
    ["response", schema.definitions.response!, RESPONSE_ATTRIBUTES],
    ["structure", schema.definitions.structure!, STRUCTURE_ATTRIBUTES],
  ];

  it.each(elements)(
    "%s: the schema flags only keys the compiler takes for a misspelling",
    (_element, element, spec) => {
      const names = Object.keys(spec);
      const patterns = Object.keys(element.patternProperties).map((p) => new RegExp(p, "u"));
      const flags = (key: string) => patterns.some((p) => p.test(key));
      const falseErrors: string[] = [];
      let flagged = 0;
      for (const key of new Set(names.flatMap(nearMisses))) {
        if (!flags(key)) continue;
        flagged++;
        if (names.includes(key) || closestMatch(key, names) === undefined) falseErrors.push(key);
      }
      expect(falseErrors).toEqual([]);
      expect(names.filter(flags)).toEqual([]);
      expect(flagged).toBeGreaterThan(names.length * 20);
    },
  );

  it("flags the common misspellings", () => {
    const names = Object.keys(PROPERTY_ATTRIBUTES);
    for (const key of ["Type", "requried", "readOnly", "maxlength", "encripted", "defualt", "uniqeItems"])
      expect(
        names.some((n) => new RegExp(misspelling(n, names), "u").test(key)),
        key,
      ).toBe(true);
  });
});
