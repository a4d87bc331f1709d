/**
 * The link picker's logic (console/src/forms/link-candidates.ts): which type a link field offers
 * resources of, the RQL it asks the controller with (read back by the controller's own parser),
 * and the label each candidate is shown with. The picker in a browser: test/e2e/console.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { buildRegistry } from "../../generator/index.ts";
import type { ApsResource } from "../../runtime/common/types.ts";
import { parseRql } from "../../runtime/common/rql.ts";
import { typeDocument } from "../../runtime/controller/type-document.ts";
import { loadDocuments, resolveDeclaration, type ResolvedDecl } from "../../console/src/forms/declaration.ts";
import { configureForm, provisionForm, type FieldSpec } from "../../console/src/forms/form-model.ts";
import {
  CANDIDATE_COUNT,
  candidateLabel,
  candidateQuery,
  candidatesOf,
  NAME_PROPERTIES,
} from "../../console/src/forms/link-candidates.ts";
import { compileDeclarations, decl, idOf, RESOURCE } from "../helpers/declarations.ts";

const TYPE = "http://vendor.example/types/mail box/1.0";

describe("the type a link field offers resources of", () => {
  let type: ResolvedDecl;
  beforeAll(async () => {
    const { model, diagnostics } = compileDeclarations([
      decl("Site", { implements: [RESOURCE], properties: { name: { type: "string" } } }),
      decl("Page", {
        implements: [RESOURCE],
        properties: {
          mirror: { type: idOf("Site") },
          previous: { type: "self" },
          sisters: { type: "array", items: { type: idOf("Site") } },
        },
        relations: { site: { type: idOf("Site"), required: true }, links: { type: idOf("Site"), collection: true } },
      }),
    ]);
    expect(diagnostics.filter((d) => d.severity === "error").map((d) => d.message)).toEqual([]);
    const served = new Map(buildRegistry(model).map((t) => [t.id, typeDocument(t)]));
    type = resolveDeclaration(idOf("Page"), await loadDocuments(idOf("Page"), async (id) => served.get(id)));
  });
  const field = (fields: readonly FieldSpec[], key: string) => fields.find((f) => f.key === key)!;

  it("is the relation's type, for one link and for each item of a collection", () => {
    const form = provisionForm(type);
    expect(field(form.fields, "site")).toMatchObject({ input: "link", linkType: idOf("Site") });
    expect(field(form.fields, "links").item).toMatchObject({ input: "link", linkType: idOf("Site") });
  });

  it("is the type id a property is declared with, in arrays too, and the form's own type for self", () => {
    const form = configureForm(type);
    expect(field(form.fields, "mirror")).toMatchObject({ input: "link", linkType: idOf("Site") });
    expect(field(form.fields, "sisters").item).toMatchObject({ input: "link", linkType: idOf("Site") });
    expect(field(form.fields, "previous")).toMatchObject({ input: "link", linkType: idOf("Page") });
  });
});

describe("the RQL of a link's candidates", () => {
  it("asks for the first page of the type's resources, only their name-ish properties, when nothing is typed", () => {
    for (const typed of ["", "  "]) {
      const q = candidateQuery(TYPE, typed);
      expect(parseRql(q)).toMatchObject({
        filter: { op: "implementing", typeId: TYPE },
        select: [...NAME_PROPERTIES],
        limit: { start: 0, count: CANDIDATE_COUNT },
      });
    }
  });

  it("matches typed text as an id prefix (lowercased, as ids are written) or inside a name-ish property (as typed)", () => {
    const parsed = parseRql(candidateQuery(TYPE, " 6C1B "));
    expect(parsed.filter).toEqual({
      op: "and",
      args: [
        { op: "implementing", typeId: TYPE },
        {
          op: "or",
          args: [
            { op: "like", prop: "aps.id", pattern: [{ text: "6c1b" }, { any: "many" }] },
            ...NAME_PROPERTIES.map((prop) => ({
              op: "like",
              prop,
              pattern: [{ any: "many" }, { text: "6C1B" }, { any: "many" }],
            })),
          ],
        },
      ],
    });
    expect(parsed.limit).toEqual({ start: 0, count: CANDIDATE_COUNT });
  });

  it("keeps RQL's delimiters and wildcards in typed text as characters to match", () => {
    const typed = "a*b?c,(d)&e=f%g'h";
    expect(parseRql(candidateQuery(TYPE, typed)).filter).toMatchObject({
      args: [
        { op: "implementing" },
        {
          op: "or",
          args: expect.arrayContaining([
            { op: "like", prop: "name", pattern: [{ any: "many" }, { text: typed }, { any: "many" }] },
          ]),
        },
      ],
    });
  });
});

describe("the label of a candidate", () => {
  const resource = (body: Record<string, unknown>, type = "http://aps-standard.org/types/core/account/1.0") =>
    ({ aps: { id: "6c1b3a7e-1f0e-4c8a-9d3f-2b4a5c6d7e8f", type }, ...body }) as unknown as ApsResource;

  it("is the short type and the first name-ish property that holds text", () => {
    expect(candidateLabel(resource({ companyName: "Console Co" }))).toBe("account/1.0 · Console Co");
    expect(candidateLabel(resource({ title: "  ", name: 7, login: "alice", companyName: "Co" }))).toBe(
      "account/1.0 · alice",
    );
    expect(candidateLabel(resource({ quota: 5 }))).toBe("account/1.0");
  });

  it("keeps markup as the text it is, and cuts a long name by code point", () => {
    expect(candidateLabel(resource({ name: "<img src=x onerror=alert(1)>" }))).toBe(
      "account/1.0 · <img src=x onerror=alert(1)>",
    );
    const long = `${"a".repeat(79)}😀😀`;
    expect(candidateLabel(resource({ name: long }))).toBe(`account/1.0 · ${"a".repeat(79)}😀…`);
  });

  it("leaves out list items without an id", () => {
    const items = [
      resource({ name: "kept" }),
      { aps: { type: TYPE } },
      { aps: { id: "" } },
    ] as unknown as ApsResource[];
    expect(candidatesOf(items)).toEqual([{ id: "6c1b3a7e-1f0e-4c8a-9d3f-2b4a5c6d7e8f", label: "account/1.0 · kept" }]);
  });
});
