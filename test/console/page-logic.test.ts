/**
 * The logic behind the console's pages that needs no browser: the RQL a resources list asks for,
 * the live call log, and the install form (console/src/pages, console/src/forms/install-form.ts).
 */
import { describe, expect, it } from "vitest";
import { ApsError } from "../../runtime/client/aps-error.ts";
import { ENDPOINT_CALL_LOG_SIZE } from "../../runtime/controller/observability/endpoint-call-log.ts";
import { unzipBounded } from "../../runtime/common/bounded-unzip.ts";
import { folderArchive, folderName } from "../../console/src/pages/package-folder.ts";
import { parseRql } from "../../runtime/common/rql.ts";
import { addCall, isCallEntry, MAX_CALLS, type EndpointCallEntry } from "../../console/src/pages/call-log.ts";
import { completions, listQuery, PAGE_SIZE } from "../../console/src/pages/list-query.ts";
import { operationBase, operationRequest } from "../../console/src/forms/operation-request.ts";
import { installForm, settingsErrors } from "../../console/src/forms/install-form.ts";
import type { FormModel } from "../../console/src/forms/form-model.ts";
import { formValues, initialState, setAt, type FormState } from "../../console/src/forms/form-state.ts";
import { validateForm } from "../../console/src/forms/validate-form.ts";
import { fieldPointers, mapErrors } from "../../console/src/forms/error-map.ts";

const TYPE = "http://vendor.example/types/mail box/1.0";

describe("the RQL of a resources list", () => {
  it("asks for the type, the filter, the sort and the page, and the controller's parser reads it back", () => {
    const q = listQuery(TYPE, " eq(name,a%20b) ", { key: "quota", descending: true }, 40);
    expect(q).toBe(
      `implementing(http://vendor.example/types/mail%20box/1.0)&eq(name,a%20b)&sort(-quota)&limit(40,${PAGE_SIZE})`,
    );
    const parsed = parseRql(q);
    expect(parsed.filter).toEqual({
      op: "and",
      args: [
        { op: "implementing", typeId: TYPE },
        { op: "eq", prop: "name", value: "a b" },
      ],
    });
    expect(parsed.sort).toEqual([{ prop: "quota", descending: true }]);
    expect(parsed.limit).toEqual({ start: 40, count: PAGE_SIZE });
  });

  it("leaves out what is not given", () => {
    expect(listQuery(TYPE, "  ", undefined, 0)).toBe(
      `implementing(http://vendor.example/types/mail%20box/1.0)&limit(0,${PAGE_SIZE})`,
    );
    expect(parseRql(listQuery(TYPE, "", { key: "aps.id", descending: false }, 0)).sort).toEqual([
      { prop: "aps.id", descending: false },
    ]);
  });

  it("cannot be broken out of by a type id holding RQL syntax", () => {
    const hostile = "http://x.example/t),or(eq(a,b)/1.0";
    expect(parseRql(listQuery(hostile, "", undefined, 0)).filter).toEqual({ op: "implementing", typeId: hostile });
  });
});

describe("property names offered in the filter box", () => {
  const names = ["name", "catchAll", "aps.id", "aps.status"];
  it("offers every name in an empty box", () => {
    expect(completions("", names)).toEqual(names);
  });
  it("completes the word being typed inside an expression", () => {
    expect(completions("eq(na", names)).toEqual(["eq(name"]);
    expect(completions("and(eq(name,a),eq(aps.", names)).toEqual([
      "and(eq(name,a),eq(aps.id",
      "and(eq(name,a),eq(aps.status",
    ]);
    expect(completions("eq(", names)).toEqual(names.map((n) => `eq(${n}`));
  });
  it("offers nothing for a word no name starts with, or one already complete", () => {
    expect(completions("eq(zz", names)).toEqual([]);
    expect(completions("eq(name", names)).toEqual([]);
  });
});

describe("the live call log", () => {
  const call = (id: number, status?: number): EndpointCallEntry => ({
    id,
    at: `t${id}`,
    instance: "i",
    method: "POST",
    path: `/svc/${id}`,
    requestHeaders: {},
    outcome: status ? "2xx" : "unreachable",
    ms: 1,
    ...(status ? { status } : {}),
  });
  it("shows the newest first and replaces an entry sent again (the finished call after the started one)", () => {
    let log = addCall([], call(1));
    log = addCall(log, call(2));
    log = addCall(log, call(1, 201));
    expect(log.map((c) => [c.id, c.status])).toEqual([
      [1, 201],
      [2, undefined],
    ]);
  });
  it("takes only entries from the stream", () => {
    expect(isCallEntry(call(1))).toBe(true);
    expect(isCallEntry({ id: "1", method: "GET", path: "/", at: "t" })).toBe(false);
    expect(isCallEntry(null)).toBe(false);
    expect(isCallEntry("data")).toBe(false);
  });

  it("keeps at most the 200 the server replays", () => {
    let log: EndpointCallEntry[] = [];
    for (let i = 0; i < 250; i++) log = addCall(log, call(i));
    expect(MAX_CALLS).toBe(ENDPOINT_CALL_LOG_SIZE);
    expect(log.length).toBe(200);
    expect(log[0]!.id).toBe(249);
    expect(log.at(-1)!.id).toBe(50);
  });
});

describe("the install form", () => {
  const settings: FormModel = {
    mode: "provision",
    topRequired: true,
    fields: [
      {
        key: "apiKey",
        label: "apiKey",
        input: "text",
        valueType: "string",
        required: true,
        editable: true,
        minLength: 16,
      },
    ],
  };
  const model = installForm(settings, "CloudMail");

  it("asks for the endpoint, its CA and the settings of the root type", () => {
    expect(model.fields.map((f) => f.label)).toEqual(["Endpoint URL", "Endpoint CA certificate", "settings"]);
    const state = initialState(model);
    const errors = validateForm(model, formValues(model, state));
    expect(errors.map((e) => `${e.path} ${e.code}`)).toEqual(["/endpoint required", "/settings/apiKey required"]);
  });

  it("sends the endpoint and the settings, the CA only when given", () => {
    let state = setAt(initialState(model), ["endpoint"], "https://app.example") as FormState;
    state = setAt(state, ["settings", "apiKey"], "0123456789abcdef") as FormState;
    expect(formValues(model, state)).toEqual({
      endpoint: "https://app.example",
      settings: { apiKey: "0123456789abcdef" },
    });
    expect(validateForm(model, formValues(model, state))).toEqual([]);
  });

  it("puts the controller's settings errors on the settings fields", () => {
    const refused = new ApsError(400, "BadRequest", "The settings of the application root resource are not valid", [
      { path: "/apiKey", code: "minLength", message: "has 5 characters; at least 16 are required" },
    ]);
    const moved = settingsErrors(refused) as ApsError;
    const mapped = mapErrors(moved.details, fieldPointers(model, initialState(model)));
    expect(mapped.byField.get("/settings/apiKey")).toEqual(["has 5 characters; at least 16 are required"]);
    expect(mapped.general).toEqual([]);
    // An error without details (an endpoint that refused) stays as it is.
    const plain = new ApsError(502, "BadGateway", "The endpoint did not answer");
    expect(settingsErrors(plain)).toBe(plain);
  });
});

describe("the request of a custom operation form", () => {
  const op = { verb: "post", path: "/resize/{unit}/now" };
  it("puts path parameters into the path, escaped, and query parameters into the query", () => {
    const call = operationRequest(
      op,
      { path: { unit: "../x y" }, query: { force: "true", "a&b": "c=d" }, body: { n: 1 } },
      operationBase({ resource: "r-1" }),
    );
    expect(call).toEqual({
      method: "POST",
      path: "/aps/2/resources/r-1/resize/..%2Fx%20y/now",
      query: "force=true&a%26b=c%3Dd",
      json: { n: 1 },
    });
  });
  it("calls a static operation below the type, and the collection itself for the path /", () => {
    expect(operationRequest({ verb: "GET", path: "/" }, {}, operationBase({ type: "http://t.example/a/1.0" }))).toEqual(
      { method: "GET", path: "/aps/2/static/http%3A%2F%2Ft.example%2Fa%2F1.0" },
    );
    expect(
      operationRequest({ verb: "GET", path: "stats" }, { query: {} }, operationBase({ type: "http://t.example/a/1.0" }))
        .path,
    ).toBe("/aps/2/static/http%3A%2F%2Ft.example%2Fa%2F1.0/stats");
  });
});

describe("a package folder made into an archive", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  it("puts the folder's files at the root, as the controller unzips them", () => {
    const files = [
      { path: "mail-app/APP-META.xml", data: bytes("<application/>") },
      { path: "mail-app/schemas/mailbox.schema", data: bytes('{"name": "Mailbox"}') },
    ];
    const entries = unzipBounded(folderArchive(files));
    expect(Object.keys(entries).sort()).toEqual(["APP-META.xml", "schemas/mailbox.schema"]);
    expect(new TextDecoder().decode(entries["schemas/mailbox.schema"])).toBe('{"name": "Mailbox"}');
    expect(folderName(files)).toBe("mail-app");
  });
  it("keeps paths whole when the files share no folder, and refuses an empty folder", () => {
    expect(
      Object.keys(
        unzipBounded(
          folderArchive([
            { path: "APP-META.xml", data: bytes("x") },
            { path: "a/b", data: bytes("y") },
          ]),
        ),
      ).sort(),
    ).toEqual(["APP-META.xml", "a/b"]);
    expect(() => folderArchive([])).toThrow(/empty/);
  });
});
