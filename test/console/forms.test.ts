/**
 * The console's forms (console/src/forms): compiled from type documents exactly as
 * `GET /aps/2/types/<id>` serves them (type-document.ts over the generator's registry), checked in
 * the browser with the project's rules, and their errors put on fields. The browser check is held
 * against the generated validators the controller runs: for the same body both must find the same
 * errors at the same pointers with the same codes.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadValidators } from "../../cli/validate/load-validators.ts";
import { buildRegistry } from "../../generator/index.ts";
import { jsonText, parseJson } from "../../runtime/client/json.ts";
import { userActor } from "../../runtime/common/actor.ts";
import type { TypeInfo } from "../../runtime/common/type-info.ts";
import type { TypeValidator } from "../../runtime/common/type-validator.ts";
import type { ValidationError } from "../../runtime/common/validation-error.ts";
import { typeDocument } from "../../runtime/controller/type-document.ts";
import {
  customOperations,
  loadDocuments,
  resolveDeclaration,
  type ResolvedDecl,
} from "../../console/src/forms/declaration.ts";
import {
  configureForm,
  operationForm,
  provisionForm,
  type FieldSpec,
  type FormModel,
} from "../../console/src/forms/form-model.ts";
import {
  changedValues,
  formValues,
  initialState,
  InvalidJson,
  setAt,
  fieldValue,
  type FormState,
} from "../../console/src/forms/form-state.ts";
import { validateChanges, validateForm } from "../../console/src/forms/validate-form.ts";
import { errorElementId, fieldPointers, inputElementId, mapErrors } from "../../console/src/forms/error-map.ts";
import { compileDeclarations, decl, idOf, RESOURCE } from "../helpers/declarations.ts";

const base = decl("Base", {
  implements: [RESOURCE],
  properties: {
    label: { type: "string", required: true, maxLength: 10 },
    region: { type: "string", enum: ["eu", "us"], enumTitles: ["Europe", "United States"] },
    home: { type: "Address" },
  },
  structures: {
    Address: {
      type: "object",
      properties: { street: { type: "string", required: true }, zip: { type: "string", pattern: "^\\d{5}$" } },
    },
  },
});
const tagged = decl("Tagged", {
  properties: { tags: { type: "array", items: { type: "string" }, uniqueItems: true, maxItems: 3, minItems: 1 } },
});
const geo = decl("Geo", {
  implements: [RESOURCE],
  properties: { name: { type: "string" } },
  structures: {
    Point: {
      type: "object",
      properties: { lat: { type: "number", required: true }, lon: { type: "number", required: true } },
    },
  },
});
const mailbox = decl("Mailbox", {
  implements: [idOf("Base"), idOf("Tagged")],
  properties: {
    // Replaces Base's label whole: longer, with a minimum.
    label: { type: "string", required: true, minLength: 2, maxLength: 20 },
    quota: { type: "integer", description: "Quota in MB" },
    ratio: { type: "number" },
    active: { type: "boolean", required: true },
    secret: { type: "string", encrypted: true },
    createdBy: { type: "string", readonly: true },
    plan: { type: "string", final: true },
    where: { type: `${idOf("Geo")}#Point` },
    extra: { type: "object" },
    contacts: { type: "array", items: { type: "Address" } },
    // The largest 64-bit integer, written into the JSON text below (a JS number would round it).
    size: { type: "integer", enum: [1, 2, "BIG"] },
    started: { type: "string", format: "date-time" },
  },
  relations: {
    owner: { type: idOf("Geo"), required: true },
    friends: { type: idOf("Geo"), collection: true },
  },
  operations: {
    resize: {
      verb: "POST",
      path: "/resize/{unit}",
      parameters: {
        unit: { kind: "path", type: "string" },
        force: { kind: "query", type: "boolean" },
        times: { kind: "query", type: "integer", required: true },
        spec: { kind: "body", type: "Address", required: true },
      },
    },
    stats: { verb: "GET", path: "/stats", static: true },
  },
});

let docs: Map<string, TypeInfo>;
let fetched: string[];
let type: ResolvedDecl;
let validator: TypeValidator;
const admin = userActor(["admin"]);

beforeAll(async () => {
  const { model, diagnostics } = compileDeclarations([
    base,
    tagged,
    geo,
    JSON.stringify(mailbox).replace('"BIG"', "9223372036854775807"),
  ]);
  const errors = diagnostics.filter((d) => d.severity === "error");
  expect(errors.map((d) => d.message)).toEqual([]);
  const served = new Map(buildRegistry(model).map((t) => [t.id, typeDocument(t)]));
  fetched = [];
  docs = await loadDocuments(idOf("Mailbox"), async (id) => {
    fetched.push(id);
    // The JSON round trip the console's fetch makes (64-bit integers kept exact).
    const doc = served.get(id);
    return doc && (parseJson(jsonText(doc)) as TypeInfo);
  });
  type = resolveDeclaration(idOf("Mailbox"), docs);
  validator = (await loadValidators(model)).get(idOf("Mailbox"))!;
});

const field = (model: FormModel, key: string): FieldSpec => {
  const f = model.fields.find((x) => x.key === key);
  if (!f) throw new Error(`no field ${key}`);
  return f;
};
const codes = (errors: readonly ValidationError[]) => errors.map((e) => `${e.path} ${e.code}`).sort();

describe("type documents merged with their ancestors", () => {
  it("fetches the parents and the types a structure reference names, each once", () => {
    expect(new Set(fetched)).toEqual(new Set([idOf("Mailbox"), idOf("Base"), idOf("Tagged"), idOf("Geo"), RESOURCE]));
    expect(fetched.length).toBe(new Set(fetched).size);
  });

  it("marks each member with the type that declared it; an own member replaces the inherited one", () => {
    expect(type.properties.get("label")).toMatchObject({
      from: idOf("Mailbox"),
      decl: { maxLength: 20, minLength: 2 },
    });
    expect(type.properties.get("region")?.from).toBe(idOf("Base"));
    expect(type.properties.get("tags")?.from).toBe(idOf("Tagged"));
    expect(type.structures.get("Address")?.from).toBe(idOf("Base"));
    expect(type.operations.get("provision")?.from).toBe(RESOURCE);
    expect(type.ancestors).toEqual([idOf("Base"), RESOURCE, idOf("Tagged")]);
  });

  it("lists only the custom operations, not the base ones of core types", () => {
    expect(
      customOperations(type)
        .map((o) => o.name)
        .sort(),
    ).toEqual(["resize", "stats"]);
  });

  it("says which declaration is missing instead of guessing", () => {
    expect(() => resolveDeclaration("http://t.example/Nothing/1.0", docs)).toThrow(/not available/);
  });
});

describe("provision and configure forms", () => {
  it("chooses inputs by type, format, enum and encryption", () => {
    const form = provisionForm(type);
    expect(field(form, "label")).toMatchObject({ input: "text", required: true, minLength: 2, maxLength: 20 });
    expect(field(form, "region")).toMatchObject({
      input: "select",
      options: [
        { value: "eu", title: "Europe" },
        { value: "us", title: "United States" },
      ],
    });
    expect(field(form, "quota")).toMatchObject({ input: "integer", description: "Quota in MB" });
    expect(field(form, "ratio").input).toBe("number");
    expect(field(form, "active")).toMatchObject({ input: "boolean", required: true });
    expect(field(form, "secret").input).toBe("secret");
    expect(field(form, "started")).toMatchObject({ input: "text", format: "date-time" });
    expect(field(form, "extra").input).toBe("json");
    expect(field(form, "size")).toMatchObject({ input: "select", valueType: "integer" });
  });

  it("nests structures (also another type's) and arrays of them", () => {
    const form = provisionForm(type);
    expect(field(form, "home")).toMatchObject({ input: "structure", structure: "Address" });
    expect(field(form, "home").fields?.map((f) => [f.key, f.required, f.pattern])).toEqual([
      ["street", true, undefined],
      ["zip", false, "^\\d{5}$"],
    ]);
    expect(field(form, "where").fields?.map((f) => f.key)).toEqual(["lat", "lon"]);
    expect(field(form, "contacts")).toMatchObject({
      input: "array",
      item: { input: "structure", structure: "Address" },
    });
    expect(field(form, "tags")).toMatchObject({
      input: "array",
      uniqueItems: true,
      maxItems: 3,
      minItems: 1,
      item: { input: "text" },
    });
  });

  it("leaves readonly properties out of provisioning and offers relations as links", () => {
    const form = provisionForm(type);
    expect(form.fields.some((f) => f.key === "createdBy")).toBe(false);
    expect(field(form, "plan").editable).toBe(true);
    expect(field(form, "owner")).toMatchObject({ input: "link", required: true });
    expect(field(form, "friends")).toMatchObject({ input: "array", item: { input: "link" } });
  });

  it("shows readonly and final properties on configure without letting them be sent; no relations", () => {
    const form = configureForm(type);
    expect(field(form, "createdBy").editable).toBe(false);
    expect(field(form, "plan").editable).toBe(false);
    expect(field(form, "label").editable).toBe(true);
    expect(form.fields.some((f) => f.key === "owner")).toBe(false);
    const state = initialState(form, { label: "abc", active: true, createdBy: "app", plan: "gold" });
    expect(formValues(form, state)).toEqual({ label: "abc", active: true });
  });
});

describe("values of a filled-in form", () => {
  it("starts a new resource from the declared defaults and an existing one from its values, secrets blank", () => {
    const withDefault = provisionForm(
      resolveDeclaration(
        idOf("Mailbox"),
        new Map([
          ...docs,
          [
            idOf("Mailbox"),
            {
              ...docs.get(idOf("Mailbox"))!,
              properties: { ...docs.get(idOf("Mailbox"))!.properties, quota: { type: "integer", default: 50 } },
            },
          ],
        ]),
      ),
    );
    expect(initialState(withDefault).quota).toBe("50");
    // A boolean starts unset, required or not: nothing is sent that nobody chose.
    expect(initialState(withDefault).active).toBe("");
    expect(formValues(withDefault, initialState(withDefault))).toEqual({ quota: 50 });
    const form = configureForm(type);
    const state = initialState(form, {
      label: "abc",
      secret: "hidden",
      region: "us",
      size: field(form, "size").options?.[2]?.value,
      home: { street: "Main" },
      tags: ["a", "b"],
      active: true,
    });
    expect(state).toMatchObject({
      label: "abc",
      secret: "",
      region: "1",
      size: "2",
      home: { street: "Main", zip: "" },
      tags: ["a", "b"],
      active: "true",
    });
  });

  it("keeps text that does not convert, so that the check reports it, and 64-bit integers exact", () => {
    const form = provisionForm(type);
    expect(fieldValue(field(form, "quota"), "12x")).toBe("12x");
    expect(fieldValue(field(form, "quota"), "9223372036854775807")).toBe(9223372036854775807n);
    expect(fieldValue(field(form, "quota"), "42")).toBe(42);
    expect(fieldValue(field(form, "ratio"), "1.5e2")).toBe(150);
    expect(fieldValue(field(form, "extra"), "{oops")).toBeInstanceOf(InvalidJson);
    expect(fieldValue(field(form, "owner"), " r-1 ")).toEqual({ aps: { id: "r-1" } });
    expect(fieldValue(field(form, "home"), { street: "", zip: "" })).toBeUndefined();
    // The option's value as the type document carries it, not a number rounded on the way.
    expect(typeof fieldValue(field(form, "size"), "2")).toBe("bigint");
    expect(fieldValue(field(form, "size"), "2")).toBe(field(form, "size").options?.[2]?.value);
  });

  it("configures only what changed; an emptied value is sent as null", () => {
    const form = configureForm(type);
    const initial = initialState(form, { label: "abc", quota: 5, region: "eu" });
    expect(changedValues(form, initial, initial)).toEqual({});
    let state = setAt(initial, ["quota"], "6") as FormState;
    state = setAt(state, ["region"], "") as FormState;
    state = setAt(state, ["home", "street"], "Main") as FormState;
    expect(changedValues(form, initial, state)).toEqual({ quota: 6, region: null, home: { street: "Main" } });
  });
});

describe("the browser check finds what the controller's generated validator finds", () => {
  const valid = { label: "abc", active: true, owner: { aps: { id: "r-1" } } };
  it.each<[string, Record<string, unknown>]>([
    ["a valid body", valid],
    [
      "everything filled in and valid",
      {
        ...valid,
        region: "us",
        quota: 9223372036854775807n,
        ratio: 0.5,
        secret: "x",
        plan: "p",
        home: { street: "s", zip: "12345" },
        where: { lat: 1, lon: 2 },
        extra: { a: [1] },
        contacts: [{ street: "a" }],
        size: 2,
        tags: ["a", "b"],
        friends: [{ aps: { id: "f" } }],
      },
    ],
    ["required properties missing", { owner: valid.owner }],
    ["too short, too long (in characters)", { ...valid, label: "😀" }],
    ["too long", { ...valid, label: "x".repeat(21) }],
    ["over the string limit", { ...valid, plan: "x".repeat(4001) }],
    ["not in the enum", { ...valid, region: "mars", size: 3 }],
    ["text in number fields", { ...valid, quota: "12x", ratio: "abc", active: "yes" }],
    ["beyond 64 bits", { ...valid, quota: 9223372036854775808n }],
    ["a fraction for an integer", { ...valid, quota: 1.5 }],
    ["a structure member missing and one off its pattern", { ...valid, home: { zip: "12" } }],
    ["another type's structure missing a member", { ...valid, where: { lat: 1 } }],
    ["an array repeating an item, over its maximum", { ...valid, tags: ["a", "b", "a", "c"] }],
    ["an array under its minimum", { ...valid, tags: [] }],
    ["an item of an array of structures", { ...valid, contacts: [{ street: "a" }, { zip: "1" }] }],
    ["an object that is not one", { ...valid, extra: [1] }],
    ["links that are not links", { ...valid, owner: { aps: {} }, friends: [{ aps: { id: "f" } }, "g"] }],
  ])("%s", (_name, body) => {
    const expected = codes(validator.validateCreate(body, admin));
    const found = codes(validateForm(provisionForm(type), body));
    expect(found).toEqual(expected);
    // Each case but the valid ones must find something, or the comparison proves nothing.
    if (!_name.includes("valid")) expect(found.length).toBeGreaterThan(0);
  });

  it("writes the same messages", () => {
    const body = { ...valid, label: "x".repeat(21), quota: "12x", home: { zip: "12" } };
    const messages = (errors: readonly ValidationError[]) => errors.map((e) => `${e.path}: ${e.message}`).sort();
    expect(messages(validateForm(provisionForm(type), body))).toEqual(messages(validator.validateCreate(body, admin)));
  });

  it.each<[string, { path: Record<string, string>; query: Record<string, string>; body?: unknown }]>([
    ["valid parameters", { path: { unit: "gb" }, query: { force: "true", times: "3" }, body: { street: "s" } }],
    [
      "text that does not convert",
      { path: { unit: "gb" }, query: { force: "maybe", times: "3.5" }, body: { street: "s" } },
    ],
    ["a required query parameter and the body missing", { path: { unit: "gb" }, query: {} }],
    [
      "a body that breaks its structure",
      { path: { unit: "gb" }, query: { times: "99999999999999999999" }, body: { zip: "1" } },
    ],
  ])("custom operation parameters: %s", (_name, input) => {
    const expected = validator.operations.resize!(input);
    const found = validateForm(operationForm(type, "resize"), input);
    expect(codes(found)).toEqual(expected.ok ? [] : codes(expected.errors));
  });
});

describe("the configure check finds what the generated update validator finds", () => {
  const resource = { label: "abc", active: true, quota: 5, region: "eu", home: { street: "Main", zip: "12345" } };
  it.each<[string, (s: FormState) => FormState]>([
    ["nothing changed", (s) => s],
    ["a valid change", (s) => setAt(s, ["quota"], "7") as FormState],
    ["a required property emptied", (s) => setAt(s, ["label"], "") as FormState],
    ["an optional property emptied", (s) => setAt(s, ["region"], "") as FormState],
    ["a required structure member emptied", (s) => setAt(s, ["home", "street"], "") as FormState],
    [
      "a whole structure emptied (cleared)",
      (s) => setAt(setAt(s, ["home", "street"], ""), ["home", "zip"], "") as FormState,
    ],
    [
      "text in a number field, a pattern broken",
      (s) => setAt(setAt(s, ["quota"], "x"), ["home", "zip"], "1") as FormState,
    ],
  ])("%s", (name, edit) => {
    const form = configureForm(type);
    const initial = initialState(form, resource);
    const changes = changedValues(form, initial, edit(initial));
    const expected = codes(validator.validateUpdate(changes, admin));
    expect(codes(validateChanges(form, changes))).toEqual(expected);
    if (
      ![
        "nothing changed",
        "a valid change",
        "an optional property emptied",
        "a whole structure emptied (cleared)",
      ].includes(name)
    )
      expect(expected.length).toBeGreaterThan(0);
  });
});

describe("errors on their fields", () => {
  it("puts browser errors on the field their pointer names, items and members included", () => {
    const form = provisionForm(type);
    const state = setAt(
      setAt(
        initialState(form),
        ["contacts"],
        [
          { street: "", zip: "" },
          { street: "", zip: "1" },
        ],
      ),
      ["label"],
      "",
    ) as FormState;
    const errors = validateForm(form, formValues(form, state));
    const mapped = mapErrors(errors, fieldPointers(form, state));
    expect(mapped.byField.get("/label")).toEqual(["is required"]);
    expect(mapped.byField.get("/contacts/1/street")).toEqual(["is required"]);
    expect(mapped.byField.get("/contacts/1/zip")?.[0]).toMatch(/does not match the pattern/);
    expect(mapped.byField.get("/owner")).toEqual(["is required"]);
    expect(mapped.general).toEqual([]);
  });

  it("puts a server error below a shown field on that field, and one naming no field in the general list", () => {
    const form = provisionForm(type);
    const pointers = fieldPointers(form, initialState(form));
    const mapped = mapErrors(
      [
        { path: "/extra/a~1b/0", code: "type", message: "expected a string" },
        { path: "/label", code: "pattern", message: "taken" },
        { path: "/nonsense", code: "unknown", message: '"nonsense" is not a property of Mailbox' },
        { path: "", code: "type", message: "expected a JSON object" },
      ],
      pointers,
    );
    expect(mapped.byField.get("/extra")).toEqual(["a/b/0: expected a string"]);
    expect(mapped.byField.get("/label")).toEqual(["taken"]);
    expect(mapped.general).toEqual([
      '/nonsense: "nonsense" is not a property of Mailbox',
      "(body): expected a JSON object",
    ]);
  });

  it("gives every pointer distinct element ids that are safe in an id", () => {
    const ids = ["/a", "/a/0", "/a~1b", "/a b", '/"><script>'].map((p) => inputElementId("f", p));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of [...ids, errorElementId("f", "/a b")]) expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});
