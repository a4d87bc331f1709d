import { readdirSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { allCodes } from "../../generator/diagnostics/codes.ts";
import { formatDiagnostic, type Diagnostic } from "../../generator/diagnostics/diagnostic.ts";
import { compile } from "../../generator/pipeline.ts";
import { corpusAvailable, corpusRoot, corpusSkipReason, repoRoot } from "../helpers/paths.ts";

const fixtures = join(repoRoot, "test/fixtures/check");
const fixture = (name: string) => relative(repoRoot, join(fixtures, name));
const show = (ds: readonly Diagnostic[]) => ds.map(formatDiagnostic).join("\n");

/**
 * One negative fixture per rule: [folder, code, file the diagnostic points at, line]. Each
 * fixture is a minimal package written to break exactly that rule, so the test also proves
 * that no other rule reports an error for it.
 */
const cases: readonly (readonly [folder: string, code: string, file: string, line: number])[] = [
  // Input, JSON and packages
  ["json-syntax", "APS001", "widget.schema", 4],
  ["duplicate-key", "APS002", "widget.schema", 6],
  ["app-meta-invalid", "APS003", "APP-META.xml", 2],
  ["schema-file-missing", "APS004", "APP-META.xml", 11],
  ["service-id-whitespace", "APS006", "APP-META.xml", 7],
  ["duplicate-service", "APS007", "APP-META.xml", 10],
  ["no-application-type", "APS008", "APP-META.xml", 1],
  ["duplicate-type-id", "APS009", "b.schema", 5],
  ["declaration-not-object", "APS010", "widget.schema", 1],
  ["service-type-missing", "APS011", "APP-META.xml", 11],
  ["php-syntax", "APS012", "widgets.php", 7],
  ["php-annotation-unknown", "APS013", "widgets.php", 9],
  ["php-annotation-ignored", "APS014", "widgets.php", 9],
  ["php-include-missing", "APS015", "widgets.php", 3],
  ["ide-model-not-read", "APS016", "model.types", 1],
  // Types
  ["aps-version", "APS020", "widget.schema", 2],
  ["type-id-invalid", "APS021", "widget.schema", 4],
  ["type-name-invalid", "APS022", "widget.schema", 3],
  ["implements-invalid", "APS023", "widget.schema", 5],
  ["implements-cycle", "APS024", "b.schema", 7],
  ["external-reference", "APS025", "widget.schema", 7],
  ["unknown-attribute", "APS026", "widget.schema", 7],
  ["attribute-value-type", "APS027", "widget.schema", 7],
  ["not-a-resource", "APS028", "widget.schema", 5],
  ["redefinition-changes-type", "APS029", "widget.schema", 9],
  ["conflicting-inheritance", "APS030", "widget.schema", 8],
  ["misspelt-attribute", "APS031", "widget.schema", 7],
  // Properties
  ["property-name-invalid", "APS040", "widget.schema", 7],
  ["property-type-missing", "APS041", "widget.schema", 7],
  ["type-unknown", "APS042", "widget.schema", 7],
  ["array-items-missing", "APS043", "widget.schema", 7],
  ["nested-array", "APS044", "widget.schema", 7],
  ["unknown-unit", "APS045", "widget.schema", 9],
  ["unknown-format", "APS046", "widget.schema", 9],
  ["format-not-string", "APS047", "widget.schema", 9],
  ["pattern-invalid", "APS048", "widget.schema", 9],
  ["constraint-not-applicable", "APS049", "widget.schema", 9],
  ["bounds-invalid", "APS050", "widget.schema", 9],
  ["default-type-mismatch", "APS051", "widget.schema", 9],
  ["enum-invalid", "APS052", "widget.schema", 12],
  ["enum-titles-mismatch", "APS053", "widget.schema", 10],
  ["default-not-in-enum", "APS054", "widget.schema", 10],
  ["value-out-of-range", "APS055", "widget.schema", 9],
  ["access-invalid", "APS056", "widget.schema", 9],
  ["encrypted-in-array", "APS057", "widget.schema", 16],
  ["items-not-array", "APS058", "widget.schema", 7],
  // Relations
  ["relation-name-invalid", "APS070", "widget.schema", 7],
  ["relation-type-missing", "APS071", "widget.schema", 7],
  ["relation-name-conflict", "APS072", "widget.schema", 10],
  ["relation-target-invalid", "APS073", "widget.schema", 7],
  // Operations
  ["operation-verb-invalid", "APS080", "widget.schema", 8],
  ["operation-path-invalid", "APS081", "widget.schema", 9],
  ["duplicate-operation-route", "APS082", "widget.schema", 15],
  ["path-equals-relation", "APS083", "widget.schema", 12],
  ["path-param-undeclared", "APS084", "widget.schema", 9],
  ["path-param-unused", "APS085", "widget.schema", 11],
  ["duplicate-parameter", "APS086", "widget.schema", 12],
  ["parameter-kind-invalid", "APS087", "widget.schema", 11],
  ["parameter-not-primitive", "APS088", "widget.schema", 11],
  ["content-type-with-type", "APS089", "widget.schema", 10],
  ["error-response-content-type", "APS090", "widget.schema", 11],
  ["content-type-not-body", "APS091", "widget.schema", 11],
  ["response-missing", "APS092", "widget.schema", 7],
  ["error-response-missing", "APS093", "widget.schema", 7],
  ["operation-name-mismatch", "APS094", "widget.schema", 8],
  ["multiple-body-parameters", "APS095", "widget.schema", 12],
  ["parameter-type-missing", "APS096", "widget.schema", 11],
  ["suspendable-operation-changed", "APS097", "widget.schema", 13],
  ["json-content-type-with-type", "APS098", "widget.schema", 10],
  // Structures
  ["structure-name-invalid", "APS110", "widget.schema", 7],
  ["structure-not-object", "APS111", "widget.schema", 8],
  ["structure-unknown", "APS112", "widget.schema", 7],
];

/** Warnings that only fire beside an error: APS016 needs a service that did not load (APS011). */
const errorItNeeds: Readonly<Record<string, string>> = { "ide-model-not-read": "APS011" };

describe("declaration rules: one negative fixture per rule", () => {
  it.each(cases)("%s reports %s at %s:%i and no other error", (folder, code, file, line) => {
    const { diagnostics } = compile([fixture(folder)], { cwd: repoRoot });
    const hits = diagnostics.filter((d) => d.code === code);
    expect(
      hits.map((d) => `${basename(d.file)}:${d.line}`),
      show(diagnostics),
    ).toContain(`${file}:${line}`);
    const hit = hits.find((d) => basename(d.file) === file && d.line === line)!;
    expect(hit.file.startsWith(`${fixture(folder)}/`), hit.file).toBe(true);
    // A message says what is wrong and what to do, not just the rule's name.
    expect(hit.message.length).toBeGreaterThan(40);
    const otherErrors = diagnostics.filter(
      (d) => d.severity === "error" && d !== hit && d.code !== errorItNeeds[folder],
    );
    expect(show(otherErrors)).toBe("");
  });

  it("covers every rule code and uses each fixture folder once", () => {
    expect(new Set(cases.map((c) => c[1]))).toEqual(new Set(allCodes.map((c) => c.code)));
    expect(cases.map((c) => c[0]).sort()).toEqual(
      readdirSync(fixtures)
        .filter((n) => n !== "valid")
        .sort(),
    );
  });

  it("names each fixture folder after its rule", () => {
    const ruleOf = new Map(allCodes.map((c) => [c.code, c.rule]));
    for (const [folder, code] of cases) expect(folder).toBe(ruleOf.get(code));
  });
});

describe("declaration rules: well-formed input", () => {
  it("a package using every feature has no errors and no warnings of its own", () => {
    const { diagnostics, model } = compile([fixture("valid")], { cwd: repoRoot });
    expect(show(diagnostics.filter((d) => d.severity === "error"))).toBe("");
    expect(show(diagnostics.filter((d) => d.file.startsWith(fixture("valid"))))).toBe("");
    expect(model.packages.find((p) => !p.bundled)?.typeIds.length).toBeGreaterThanOrEqual(2);
  });

  it("the bundled core types have no errors", () => {
    const { diagnostics } = compile([], { cwd: repoRoot });
    expect(show(diagnostics.filter((d) => d.severity === "error"))).toBe("");
  });

  const corpusFiles = [
    ...["context", "service", "email", "domain"].map((n) => `SpamExperts__aps2-addon/src/schemas/${n}.schema.gen`),
    ...["applications", "isitup_domains", "contexts"].map((n) => `sheh1000__aps-isitup/schemas/${n}.schema.gen`),
  ].map((p) => relative(repoRoot, join(corpusRoot, p)));

  it.skipIf(!corpusAvailable).each(corpusFiles)(`real declaration %s has no errors${corpusSkipReason}`, (path) => {
    const { diagnostics, model } = compile([path], { cwd: repoRoot });
    expect(show(diagnostics.filter((d) => d.severity === "error"))).toBe("");
    expect(model.packages.find((p) => !p.bundled)?.typeIds).toHaveLength(1);
  });
});
