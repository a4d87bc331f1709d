/**
 * The OpenAPI 3.1 document of the controller API (generator/emit/openapi): it passes a
 * well-kept validator (@readme/openapi-parser) for the checked-in build, the examples and every
 * corpus package; it says what the issue asks for, with expectations read from the declarations
 * themselves; and `aps-gen build --check` notices when the written document is edited.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { compileErrors, validate } from "@readme/openapi-parser";
import { parse as parseJsonc } from "jsonc-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../../generated/openapi/openapi.gen.ts";
import { main } from "../../cli/main.ts";
import { buildOpenApi } from "../../generator/emit/openapi/emit-openapi.ts";
import { compile } from "../../generator/pipeline.ts";
import { compileDeclarations, RESOURCE } from "../helpers/declarations.ts";
import { corpusAvailable, corpusRoot, corpusSkipReason, repoRoot } from "../helpers/paths.ts";
import { startControllerUnderTest } from "../e2e/controller-harness.ts";

// The parts of OpenAPI 3.1 these tests look at.
interface SchemaObject {
  $ref?: string;
  type?: string;
  const?: unknown;
  enum?: unknown[];
  readOnly?: boolean;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  items?: SchemaObject;
  oneOf?: SchemaObject[];
  allOf?: SchemaObject[];
}
interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  schema?: SchemaObject;
}
type Content = Record<string, { schema: SchemaObject }>;
interface ResponseObject {
  $ref?: string;
  description?: string;
  headers?: Record<string, { $ref?: string; required?: boolean; schema?: SchemaObject }>;
  content?: Content;
}
interface OperationObject {
  operationId: string;
  parameters?: ParameterObject[];
  requestBody?: { required?: boolean; content: Content };
  responses: Record<string, ResponseObject>;
  security?: Record<string, string[]>[];
}
const methods = ["get", "put", "post", "delete"] as const;
type PathItem = { parameters?: ParameterObject[] } & Partial<Record<(typeof methods)[number], OperationObject>>;
interface OpenApiDocument {
  openapi: string;
  security: Record<string, string[]>[];
  paths: Record<string, PathItem>;
  components: { schemas: Record<string, SchemaObject>; securitySchemes: Record<string, Record<string, unknown>> };
}

// The parts of an APS declaration (docs/aps/types.md) these tests read.
interface DeclType {
  type?: string;
  items?: DeclType;
  contentType?: string;
}
interface DeclProperty extends DeclType {
  required?: boolean;
  readonly?: boolean;
  final?: boolean;
  encrypted?: boolean;
  default?: unknown;
}
interface DeclParameter extends DeclType {
  kind: "path" | "query" | "body";
  required?: boolean;
}
interface DeclOperation {
  verb: string;
  path: string;
  static?: boolean;
  parameters?: Record<string, DeclParameter>;
  response?: DeclType;
  errorResponse?: DeclType;
}
interface Declaration {
  name: string;
  id: string;
  properties?: Record<string, DeclProperty>;
  relations?: Record<string, { type: string; collection?: boolean }>;
  operations?: Record<string, DeclOperation>;
  structures?: Record<string, { properties?: Record<string, DeclProperty> }>;
}

/** The validator's verdict: "" when valid, else its readable report (shown by a failing `toBe("")`). */
async function validationReport(doc: object): Promise<string> {
  // validate() dereferences what it is given; the documents under test stay as they are.
  const result = await validate(structuredClone(doc) as Parameters<typeof validate>[0]);
  return result.valid ? "" : compileErrors(result);
}

function readDeclarations(folder: string): Declaration[] {
  const dir = join(repoRoot, folder);
  return readdirSync(dir)
    .filter((n) => n.endsWith(".schema"))
    .sort()
    .map((n) => parseJsonc(readFileSync(join(dir, n), "utf8")) as Declaration);
}

function findFiles(dir: string, match: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const abs = join(dir, e.name);
    if (e.isDirectory()) out.push(...findFiles(abs, match));
    else if (match(e.name)) out.push(abs);
  }
  return out.sort();
}

/** Follows local `$ref`s (`#/components/...`) to the object they name. */
function resolve<T extends { $ref?: string }>(doc: OpenApiDocument, value: T): T {
  let current: T = value;
  for (let hops = 0; current.$ref !== undefined; hops++) {
    if (hops > 10) throw new Error(`$ref loop at ${current.$ref}`);
    let target: unknown = doc;
    for (const part of current.$ref.replace(/^#\//, "").split("/"))
      target = (target as Record<string, unknown> | undefined)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    if (target === undefined) throw new Error(`${current.$ref} does not resolve`);
    current = target as T;
  }
  return current;
}

function operationsOf(doc: OpenApiDocument): { path: string; method: string; op: OperationObject; item: PathItem }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    methods.flatMap((method) => (item[method] ? [{ path, method, op: item[method]!, item }] : [])),
  );
}

const keys = (o: object | undefined) => Object.keys(o ?? {}).sort();
const generated = openApiDocument as unknown as OpenApiDocument;

describe("the OpenAPI document passes @readme/openapi-parser", () => {
  it("as generated into generated/openapi/openapi.gen.ts", async () => {
    expect(generated.openapi).toBe("3.1.0");
    expect(await validationReport(generated)).toBe("");
  });

  it("for the core types with both example packages, built through the generator's API", async () => {
    const { model, diagnostics } = compile(["types/core", "types/examples/cloudmail", "types/examples/vpscloud"], {
      cwd: repoRoot,
    });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const doc = buildOpenApi(model);
    expect(await validationReport(doc)).toBe("");
    // The checked-in document is this build (build --check keeps it so).
    expect(doc).toEqual(generated);
  });

  // The same listing as test/load/corpus.test.ts: the corpus is used in place, never copied.
  const rel = (p: string) => relative(repoRoot, p);
  const packages = corpusAvailable
    ? findFiles(corpusRoot, (n) => n === "APP-META.xml").map((p) => rel(dirname(p)))
    : [];
  const withSchemas = corpusAvailable
    ? [...new Set(findFiles(corpusRoot, (n) => n.endsWith(".schema.gen")).map((p) => rel(dirname(dirname(p)))))]
    : [];

  it.skipIf(!corpusAvailable)(`covers every corpus package${corpusSkipReason}`, () => {
    expect(packages).toHaveLength(19);
    expect(withSchemas.length).toBeGreaterThan(0);
  });

  const corpusCases: [string, string[]][] = corpusAvailable
    ? [
        ...packages.map((p): [string, string[]] => [p, [p]]),
        [`${withSchemas.join(" + ")} together (their type names clash)`, withSchemas],
      ]
    : [];
  it.each(corpusCases)("for corpus %s", async (_, inputs) => {
    const { model } = compile(inputs, { cwd: repoRoot });
    const doc = buildOpenApi(model) as unknown as OpenApiDocument;
    expect(await validationReport(doc)).toBe("");
    // The package's own resource types can be provisioned through the document.
    const own = model.packages
      .filter((p) => !p.bundled)
      .flatMap((p) => p.typeIds)
      .filter((id) => model.types.get(id)!.isResource);
    const provisionable = doc.paths["/aps/2/resources"]!.post!.requestBody!.content[
      "application/json"
    ]!.schema.oneOf!.map((s) => resolve(doc, s).properties!.aps!.properties!.type!.const);
    expect(provisionable).toEqual(expect.arrayContaining(own));
  });

  it("where types share a name, each still gets its own schemas and operation ids", async () => {
    const widget = (version: string) => ({
      apsVersion: "2.0",
      name: "widget",
      id: `http://t.example/widget/${version}`,
      implements: [RESOURCE],
      properties: { [`size${version.replace(".", "")}`]: { type: "integer" } },
      operations: {
        ping: {
          verb: "GET",
          path: "/ping",
          static: true,
          response: { type: "string" },
          errorResponse: { type: "object" },
        },
      },
    });
    // Named like the controller's own error schema, and like the core Subscription type.
    const clash = (name: string) => ({
      apsVersion: "2.0",
      name,
      id: `http://t.example/${name}/1.0`,
      implements: [RESOURCE],
      properties: { note: { type: "string" } },
    });
    const { model, diagnostics, dir } = compileDeclarations([
      widget("1.0"),
      widget("1.1"),
      clash("ApsError"),
      clash("subscription"),
    ]);
    rmSync(dir, { recursive: true, force: true });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const doc = buildOpenApi(model) as unknown as OpenApiDocument;
    expect(await validationReport(doc)).toBe("");
    const resourceIds = [...model.types.values()].filter((t) => t.isResource).map((t) => t.id);
    const creates = doc.paths["/aps/2/resources"]!.post!.requestBody!.content["application/json"]!.schema.oneOf!.map(
      (s) => resolve(doc, s),
    );
    expect(creates.map((s) => s.properties!.aps!.properties!.type!.const)).toEqual(resourceIds);
    for (const version of ["10", "11"]) expect(creates.some((s) => `size${version}` in s.properties!)).toBe(true);
    const errorShape = resolve(doc, doc.paths["/aps/2/types"]!.get!.responses["404"]!).content!["application/json"]!
      .schema;
    expect(resolve(doc, errorShape).required).toEqual(expect.arrayContaining(["code", "type", "message"]));
    const subscribe =
      doc.paths["/aps/2/resources/{id}/aps/subscriptions"]!.post!.requestBody!.content["application/json"]!.schema;
    expect(resolve(doc, subscribe).required).toEqual(["event", "source", "handler"]);
  });
});

describe("one path that several types declare", () => {
  it("is one operation describing them all: parameters joined, bodies and replies as oneOf", async () => {
    const machine = (name: string, restart: Record<string, unknown>) => ({
      apsVersion: "2.0",
      name,
      id: `http://t.example/${name}/1.0`,
      implements: [RESOURCE],
      structures: { [`${name}Plan`]: { type: "object", properties: { [`${name}Only`]: { type: "string" } } } },
      operations: { restart: { verb: "POST", path: "/restart", errorResponse: { type: "object" }, ...restart } },
    });
    const gadget = machine("gadget", {
      parameters: {
        force: { kind: "query", type: "boolean", required: true },
        plan: { kind: "body", type: "gadgetPlan", required: true },
      },
      response: { type: "string" },
    });
    const gizmo = machine("gizmo", {
      parameters: {
        force: { kind: "query", type: "boolean", required: false },
        delay: { kind: "query", type: "integer" },
        plan: { kind: "body", type: "gizmoPlan", required: true },
      },
      response: { contentType: "text/plain" },
    });
    const { model, diagnostics, dir } = compileDeclarations([gadget, gizmo]);
    rmSync(dir, { recursive: true, force: true });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const doc = buildOpenApi(model) as unknown as OpenApiDocument;
    expect(await validationReport(doc)).toBe("");
    const op = doc.paths["/aps/2/resources/{id}/restart"]!.post!;
    expect(op.operationId).toBe("Gadget_restart__Gizmo_restart");
    expect(op.parameters!.map((p) => [p.name, p.in, p.required])).toEqual([
      ["id", "path", true],
      // Required by gadget only, so not required of the path.
      ["force", "query", false],
      ["delay", "query", false],
    ]);
    expect(op.requestBody!.required).toBe(true);
    expect(op.requestBody!.content["application/json"]!.schema.oneOf!.map((s) => s.$ref)).toEqual([
      "#/components/schemas/Gadget.gadgetPlan",
      "#/components/schemas/Gizmo.gizmoPlan",
    ]);
    expect(keys(op.responses["200"]!.content)).toEqual(["application/json", "text/plain"]);
  });
});

describe("a document the validator must reject", () => {
  const cases: [string, (doc: Record<string, any>) => void, RegExp][] = [
    [
      "a $ref to a schema that does not exist",
      (d) =>
        (d.paths["/aps/2/resources"].post.requestBody.content["application/json"].schema = {
          $ref: "#/components/schemas/Nowhere",
        }),
      /Nowhere/,
    ],
    ["an apiKey scheme sent in the body", (d) => (d.components.securitySchemes.apsToken.in = "body"), /apsToken|in/],
    [
      "two operations with one operationId",
      (d) => (d.paths["/aps/2/tasks"].get.operationId = "listResources"),
      /listResources/,
    ],
  ];
  it.each(cases)("fails for %s", async (_, breakIt, message) => {
    const broken = structuredClone(openApiDocument) as Record<string, any>;
    breakIt(broken);
    const report = await validationReport(broken);
    expect(report).toMatch(message);
  });
});

describe("what the example document says (expectations from types/examples/cloudmail)", () => {
  const core = readDeclarations("types/core");
  const cloudmail = readDeclarations("types/examples/cloudmail/schemas");
  const examples = [...cloudmail, ...readDeclarations("types/examples/vpscloud/schemas")];
  const byId = new Map([...core, ...examples].map((d) => [d.id, d]));
  const doc = generated;
  const schemas = doc.components.schemas;

  /** The declaration and name of a structure reference, as written in `owner`. */
  function structureOf(owner: Declaration, ref: string): { properties?: Record<string, DeclProperty> } {
    const [typeId, name] = ref.includes("#") ? (ref.split("#") as [string, string]) : [owner.id, ref];
    const found = byId.get(typeId)?.structures?.[name];
    if (!found) throw new Error(`${owner.name}: no structure ${ref}`);
    return found;
  }

  /** The schema says what the declaration's type says: primitive, array, or that structure. */
  function expectSchemaOf(schema: SchemaObject, decl: DeclType, owner: Declaration): void {
    const s = resolve(doc, schema);
    // A path several types declare offers each type's shape: one of them must be this one.
    if (s.oneOf) {
      const fits = s.oneOf.filter((alternative) => {
        try {
          expectSchemaOf(alternative, decl, owner);
          return true;
        } catch {
          return false;
        }
      });
      expect(fits.length, `${owner.name}: no alternative of the oneOf fits`).toBeGreaterThan(0);
    } else if (decl.type === "array") {
      expect(s.type).toBe("array");
      expectSchemaOf(s.items!, decl.items!, owner);
    } else if (["string", "boolean", "number", "integer", "object"].includes(decl.type!)) {
      expect(s.type).toBe(decl.type);
    } else {
      expect(keys(s.properties)).toEqual(keys(structureOf(owner, decl.type!).properties));
    }
  }

  function expectContentOf(content: Content | undefined, decl: DeclType, owner: Declaration): void {
    if (decl.contentType !== undefined) {
      expect(keys(content)).toEqual([decl.contentType]);
    } else {
      expect(keys(content)).toEqual(["application/json"]);
      expectSchemaOf(content!["application/json"]!.schema, decl, owner);
    }
  }

  const mailbox = cloudmail.find((d) => d.name === "Mailbox")!;
  const props = Object.entries(mailbox.properties!);
  const relations = keys(mailbox.relations);
  const names = (pred: (p: DeclProperty) => boolean) => props.filter(([, p]) => pred(p)).map(([n]) => n);

  it("has Mailbox, MailboxCreate and MailboxUpdate with the properties each shape allows", () => {
    const read = schemas[mailbox.name]!;
    const create = schemas[`${mailbox.name}Create`]!;
    const update = schemas[`${mailbox.name}Update`]!;
    // Encrypted values are never read back by users; readonly ones cannot be written; final ones only once.
    expect(keys(read.properties)).toEqual(["aps", ...relations, ...names((p) => !p.encrypted)].sort());
    expect(keys(create.properties)).toEqual(["aps", ...relations, ...names((p) => !p.readonly)].sort());
    expect(keys(update.properties)).toEqual(["aps", ...names((p) => !p.readonly && !p.final)].sort());
    expect(names((p) => !!p.readonly).length).toBeGreaterThan(0);
    expect(names((p) => !!p.final && !p.readonly).length).toBeGreaterThan(0);
    for (const n of names((p) => !!p.readonly && !p.encrypted)) expect(read.properties![n]!.readOnly).toBe(true);

    expect(create.required!.slice().sort()).toEqual(["aps", ...names((p) => !!p.required && !p.readonly)].sort());
    expect(create.properties!.aps!.properties!.type!.const).toBe(mailbox.id);
    expect(update.required).toBeUndefined();
  });

  it("lists every declared resource type's schemas under its own name", () => {
    const resourceTypes = [...core, ...examples].filter(
      (d) => `${d.name.replace(/^./, (c) => c.toUpperCase())}Create` in schemas,
    );
    expect(resourceTypes.map((d) => d.id)).toEqual(expect.arrayContaining(examples.map((d) => d.id)));
    for (const d of resourceTypes) {
      const name = d.name.replace(/^./, (c) => c.toUpperCase());
      expect(schemas[`${name}Create`]!.properties!.aps!.properties!.type!.const).toBe(d.id);
      expect(keys(schemas[name]!.properties)).toEqual(
        expect.arrayContaining(Object.keys(d.properties ?? {}).filter((p) => !d.properties![p]!.encrypted)),
      );
    }
  });

  const customOps = cloudmail.flatMap((d) =>
    Object.entries(d.operations ?? {}).map(([name, op]) => ({ owner: d, name, op })),
  );
  const pathOf = (owner: Declaration, op: DeclOperation) =>
    op.static ? `/aps/2/static/${encodeURIComponent(owner.id)}${op.path}` : `/aps/2/resources/{id}${op.path}`;

  it("declares operations of cloudmail, static ones among them", () => {
    expect(customOps.length).toBeGreaterThan(5);
    expect(customOps.some((o) => o.op.static)).toBe(true);
  });

  it.each(customOps.map((o) => [`${o.owner.name}.${o.name}`, o] as const))(
    "has %s at its path with its parameters, body and replies",
    (_, { owner, op }) => {
      const item = doc.paths[pathOf(owner, op)];
      expect(item, pathOf(owner, op)).toBeDefined();
      const operation = item![op.verb.toLowerCase() as (typeof methods)[number]]!;
      expect(operation).toBeDefined();
      const parameters = [...(item!.parameters ?? []), ...(operation.parameters ?? [])];
      const param = (name: string, where: string) => parameters.find((p) => p.name === name && p.in === where);
      // Static operations are called on the collection, without a resource id (docs/aps/rest-api.md).
      expect(param("id", "path") !== undefined).toBe(!op.static);
      const declared = Object.entries(op.parameters ?? {});
      for (const [name, p] of declared.filter(([, p]) => p.kind !== "body")) {
        const found = param(name, p.kind);
        expect(found, `${p.kind} parameter ${name}`).toBeDefined();
        expect(found!.required).toBe(p.kind === "path" || !!p.required);
        expectSchemaOf(found!.schema!, p, owner);
      }
      const body = declared.find(([, p]) => p.kind === "body")?.[1];
      if (body) {
        expect(operation.requestBody!.required).toBe(!!body.required);
        expectContentOf(operation.requestBody!.content, body, owner);
      } else {
        expect(operation.requestBody).toBeUndefined();
      }
      if (op.response) expectContentOf(operation.responses["200"]!.content, op.response, owner);
      if (op.errorResponse) expectContentOf(operation.responses.default!.content, op.errorResponse, owner);
    },
  );

  it("keeps 64-bit defaults and enum values beyond 2^53 exact", () => {
    const prop = (schema: string, name: string) =>
      schemas[schema]!.properties![name]! as SchemaObject & { default?: unknown };
    // As declared: 2^53 + 1 and 2^63 - 1, which a double would round to 2^53 and 2^63.
    expect(prop("Mailbox", "archiveQuota").default).toBe(9007199254740993n);
    expect(prop("Vps", "trafficLimit").default).toBe(9223372036854775807n);
    expect(prop("Vps", "trafficLimit").enum).toEqual([102400, 1048576, 9223372036854775807n]);
  });

  it("has security schemes for APS-Token and for client certificates", () => {
    const schemes = Object.entries(doc.components.securitySchemes);
    const token = schemes.find(([, s]) => s.type === "apiKey");
    const certificate = schemes.find(([, s]) => s.type === "mutualTLS");
    expect(token?.[1]).toMatchObject({ in: "header", name: "APS-Token" });
    expect(certificate).toBeDefined();
    expect(doc.security).toEqual([{ [token![0]]: [] }]);
    // The /aps/2/application collection is for application instances only (docs/aps/security.md).
    const application = operationsOf(doc).filter((o) => /^\/aps\/2\/application(\/|$)/.test(o.path));
    expect(application.length).toBeGreaterThanOrEqual(5);
    for (const { op } of application) expect(op.security).toEqual([{ [certificate![0]]: [] }]);
  });

  const customKeys = new Set(
    [...core, ...examples].flatMap((d) =>
      Object.values(d.operations ?? {}).map((op) => `${op.verb.toLowerCase()} ${pathOf(d, op)}`),
    ),
  );

  it("declares Content-Range on every list the controller answers (docs/aps/rql.md section 6)", () => {
    const lists = operationsOf(doc).filter(({ path, method, op }) => {
      // Custom operations pass the application's reply through as it is.
      if (customKeys.has(`${method} ${path}`)) return false;
      return ["200", "206"].some(
        (s) =>
          op.responses[s] &&
          resolve(doc, op.responses[s]!.content?.["application/json"]?.schema ?? {}).type === "array",
      );
    });
    const listed = lists.map((l) => `${l.method} ${l.path}`);
    expect(listed).toEqual(
      expect.arrayContaining([
        "get /aps/2/resources",
        "get /aps/2/applications",
        ...relations.map((r) => `get /aps/2/resources/{id}/${r}`),
      ]),
    );
    for (const { path, op } of lists) {
      for (const status of ["200", "206"].filter((s) => op.responses[s])) {
        const header = op.responses[status]!.headers?.["Content-Range"];
        expect(header, `${path} ${status}`).toBeDefined();
        const resolved = resolve(doc, header!);
        expect(resolved.required).toBe(true);
        expect(resolved.schema?.type).toBe("string");
      }
    }
    expect(keys(doc.paths["/aps/2/resources"]!.get!.responses)).toEqual(expect.arrayContaining(["200"]));
    // 200 also for a part: Connect and FallBall take only 200 (docs/platform-forms.md §1.2, §1.3).
    expect(keys(doc.paths["/aps/2/resources"]!.get!.responses)).not.toContain("206");
  });

  it("answers errors with the error schema: code, type, error, message, details", () => {
    let count = 0;
    for (const { path, method, op } of operationsOf(doc)) {
      for (const [status, response] of Object.entries(op.responses).filter(([s]) => /^[45]\d\d$/.test(s))) {
        const content = resolve(doc, response).content?.["application/json"];
        expect(content, `${method} ${path} ${status}`).toBeDefined();
        const shape = resolve(doc, content!.schema);
        expect(keys(shape.properties)).toEqual(["code", "details", "error", "message", "type"]);
        expect(shape.required).toEqual(["code", "type", "error", "message"]);
        expect(keys(resolve(doc, shape.properties!.details!.items!).properties)).toEqual(["code", "message", "path"]);
        count++;
      }
      // Every call that takes a token can be refused; the two open documents cannot.
      if (!(Array.isArray(op.security) && op.security.length === 0))
        expect(Object.keys(op.responses).filter((s) => /^4/.test(s)).length, `${method} ${path}`).toBeGreaterThan(0);
    }
    expect(count).toBeGreaterThan(100);
  });
});

describe("aps-gen build --check covers the OpenAPI document", () => {
  // Made in beforeAll, not while collecting: a skipped or filtered describe runs no afterAll.
  let root = "";
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "aps-gen-openapi-"));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("fails naming openapi/openapi.gen.ts once it is edited", async () => {
    mkdirSync(join(root, "decl"));
    const gadget = {
      apsVersion: "2.0",
      name: "gadget",
      id: "http://t.example/gadget/1.0",
      implements: [RESOURCE],
      properties: { size: { type: "integer", required: true } },
    };
    writeFileSync(join(root, "decl", "gadget.schema"), JSON.stringify(gadget, null, 2));
    const run = async (...argv: string[]) => {
      const out: string[] = [];
      const code = await main(argv, { out: (l) => out.push(l), err: (l) => out.push(l) }, root);
      return { code, out };
    };
    expect((await run("build", "--types", "decl")).code).toBe(0);
    const file = join(root, "generated", "openapi", "openapi.gen.ts");
    const text = readFileSync(file, "utf8");
    expect(text).toContain("GadgetCreate: {");
    expect((await run("build", "--types", "decl", "--check")).code).toBe(0);

    writeFileSync(file, text.replace('openapi: "3.1.0"', 'openapi: "3.0.3"'));
    expect(readFileSync(file, "utf8")).not.toBe(text);
    const check = await run("build", "--types", "decl", "--check");
    expect(check.code).toBe(1);
    expect(check.out).toContain("  differs   generated/openapi/openapi.gen.ts");
    expect(check.out.filter((l) => l.includes("differs"))).toHaveLength(1);
  });
});

describe("the document served at /aps/2/openapi.json matches the routes of a running controller", () => {
  it("describes every route the controller answers, and nothing it does not", async () => {
    const running = await startControllerUnderTest("pglite", ["types/examples/cloudmail"]);
    try {
      const served = await running.call("GET", "/aps/2/openapi.json");
      expect(served.status).toBe(200);
      const doc = served.json as OpenApiDocument;
      // Served as exact JSON integers, not rounded doubles.
      expect(served.text).toMatch(/"default":9007199254740993[,}]/);
      expect(served.text).not.toContain("9007199254740992");
      // "METHOD /path", path parameters written as x.
      const described = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((k) => k !== "parameters")
          .map((m) => `${m.toUpperCase()} ${path.replace(/\{[^}]+\}/g, "x")}`),
      );
      // Hono patterns as expressions: `:name` one segment, a trailing `*` anything below (custom
      // operations, relations, static operations, package files, type ids).
      // The console's files (/console/...) are a web page, not API.
      const routes = running.controller.routes
        .filter((r) => !/^\/console(\/|$)/.test(r.path))
        .map((r) => ({
          route: `${r.method} ${r.path}`,
          pattern: new RegExp(`^${r.method} ${r.path.replace(/:[^/]+/g, "[^/]+").replace(/\/\*$/, "/.+")}$`),
        }));
      expect(routes.length).toBeGreaterThan(30);
      // A plain route is described with its method. A wildcard one answers whatever the types
      // declare, so only what they declare is described: some path below it, in any method.
      const undescribed = routes.filter((r) =>
        r.route.endsWith("/*")
          ? !described.some((d) => new RegExp(r.pattern.source.replace(/^\^[A-Z]+ /, "^[A-Z]+ ")).test(d))
          : !described.some((d) => r.pattern.test(d)),
      );
      expect(undescribed.map((r) => r.route)).toEqual([]);
      const phantom = described.filter((d) => !routes.some((r) => r.pattern.test(d)));
      expect(phantom).toEqual([]);
      // The aps section of a real answer has the members the meta schema names, and only those.
      const made = await running.call("POST", "/aps/2/resources", {
        token: running.adminToken,
        body: {
          aps: { type: "http://aps-standard.org/types/core/account/1.0" },
          companyName: "Customer",
          addressPostal: {},
        },
      });
      expect(made.status, made.text).toBe(201);
      const meta = doc.components.schemas.ApsMeta!;
      expect(Object.keys(made.json.aps).filter((k) => !(k in meta.properties!))).toEqual([]);
      for (const k of meta.required ?? []) expect(made.json.aps).toHaveProperty(k);
    } finally {
      await running.dispose();
    }
  }, 60_000);
});
