import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AnySchemaObject } from "ajv";
import ajvDraft04 from "ajv-draft-04";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Diagnostic } from "../../generator/diagnostics/diagnostic.ts";
import { escapeData, escapeProperty, githubAnnotation } from "../../cli/output/github-annotations.ts";
import { artifactUri } from "../../cli/output/sarif-log.ts";
import { runCli } from "../helpers/cli-run.ts";
import { repoRoot } from "../helpers/paths.ts";

/**
 * Issue 31: `--format json|sarif|github` of check and build, for CI. Each runs on a known-bad
 * declaration (a fixture of the rule tests) and on the same declaration made clean.
 */
const root = mkdtempSync(join(tmpdir(), "aps-gen-ci-formats-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const FIXTURE = join(repoRoot, "test/fixtures/check/attribute-value-type/widget.schema");
const fixtureText = readFileSync(FIXTURE, "utf8");

/** Where the fixture's one error is: the value "yes" of "required" (APS027), found in its text. */
const badValue = (() => {
  const lines = fixtureText.split("\n");
  const line = lines.findIndex((l) => l.includes('"required": "yes"'));
  const col = lines[line]!.indexOf('"yes"') + 1;
  return { line: line + 1, col, endLine: line + 1, endCol: col + '"yes"'.length };
})();

beforeAll(() => {
  mkdirSync(join(root, "bad"));
  cpSync(FIXTURE, join(root, "bad", "widget.schema"));
  mkdirSync(join(root, "clean"));
  writeFileSync(join(root, "clean", "widget.schema"), fixtureText.replace('"required": "yes"', '"required": true'));
});

const run = (...argv: string[]) => runCli(argv, root);

describe("--format json", () => {
  it("is one JSON document naming the code, file, line, column and end of each finding, with a summary", async () => {
    const r = await run("check", "--types", "bad", "--format", "json");
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.out.join("\n"));
    expect(doc.diagnostics).toEqual([
      {
        code: "APS027",
        rule: "attribute-value-type",
        severity: "error",
        message: expect.stringContaining('"required"'),
        file: "bad/widget.schema",
        ...badValue,
      },
    ]);
    expect(doc.summary).toEqual({ types: expect.any(Number), errors: 1, warnings: 0 });
    expect(doc.summary.types).toBeGreaterThan(1); // the core types are checked too
    // People's lines go to stderr, so stdout is the document alone.
    expect(r.err.at(-1)).toMatch(/^✗ \d+ types checked · 1 error · 0 warnings/);
  });

  it("names the same places as the text format", async () => {
    const text = await run("check", "--types", "bad");
    const json = JSON.parse((await run("check", "--types", "bad", "--format", "json")).out.join("\n"));
    expect(text.out).toContain(
      `bad/widget.schema:${badValue.line}:${badValue.col} - error APS027: ${json.diagnostics[0].message}`,
    );
  });

  it("gives the end of a JSON syntax error and of a repeated key", async () => {
    mkdirSync(join(root, "syntax"));
    writeFileSync(join(root, "syntax", "a.schema"), '{\n  "apsVersion": "2.0",\n  "name": "a" "b"\n}\n');
    writeFileSync(join(root, "syntax", "b.schema"), '{\n  "apsVersion": "2.0",\n  "name": "a",\n  "name": "c"\n}\n');
    const doc = JSON.parse((await run("check", "--types", "syntax", "--no-core", "--format", "json")).out.join("\n"));
    const byCode = (code: string) => doc.diagnostics.find((d: Diagnostic) => d.code === code);
    // The unexpected token "b" (a comma was expected before it), and the second "name" key.
    expect(byCode("APS001")).toMatchObject({ file: "syntax/a.schema", line: 3, col: 15, endLine: 3, endCol: 18 });
    expect(byCode("APS002")).toMatchObject({ file: "syntax/b.schema", line: 4, col: 3, endLine: 4, endCol: 9 });
  });

  it("gives an empty list and exit 0 for clean declarations", async () => {
    const r = await run("check", "--types", "clean", "--format", "json");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out.join("\n"));
    expect(doc.diagnostics).toEqual([]);
    expect(doc.summary).toMatchObject({ errors: 0, warnings: 0 });
  });

  it("build: the same document, and nothing written when there are errors", async () => {
    const r = await run("build", "--types", "bad", "--out", "gen-bad", "--format", "json");
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out.join("\n"))).toMatchObject({
      diagnostics: [{ code: "APS027", ...badValue }],
      summary: { errors: 1 },
    });
    expect(r.err.at(-1)).toMatch(/^✗ build stopped: 1 error · 0 warnings; nothing was written/);

    const ok = await run("build", "--types", "clean", "--out", "gen-clean", "--format", "json");
    expect(ok.code).toBe(0);
    const doc = JSON.parse(ok.out.join("\n"));
    expect(doc).toMatchObject({ diagnostics: [], summary: { errors: 0, warnings: 0 } });
    expect(doc.files.length).toBeGreaterThan(0);
  });
});

describe("--format sarif", () => {
  // The official schema is JSON Schema draft-04 (test/fixtures/sarif/README.md says where it is from).
  const schema = JSON.parse(
    readFileSync(join(repoRoot, "test/fixtures/sarif/sarif-schema-2.1.0.json"), "utf8"),
  ) as AnySchemaObject;
  // A CommonJS module: its class is module.exports, and also its `default` property, which is
  // what the types of a default import from ESM name.
  const ajv = new ajvDraft04.default({ allErrors: true });
  // The formats the schema names, checked with the WHATWG URL parser rather than left unchecked.
  ajv.addFormat("uri", (s: string) => !/\s/.test(s) && URL.canParse(s));
  ajv.addFormat("uri-reference", (s: string) => !/\s/.test(s) && URL.canParse(s, "file:///base/"));
  ajv.addFormat("date-time", (s: string) => !Number.isNaN(Date.parse(s)));
  const validate = ajv.compile(schema);
  const valid = (log: unknown) => (validate(log) ? [] : validate.errors!.map((e) => `${e.instancePath} ${e.message}`));

  it("is a valid SARIF 2.1.0 log with every rule of `aps-gen rules` and one result per finding", async () => {
    const r = await run("check", "--types", "bad", "--format", "sarif");
    expect(r.code).toBe(1);
    const log = JSON.parse(r.out.join("\n"));
    expect(valid(log)).toEqual([]);

    const driver = log.runs[0].tool.driver;
    expect(driver).toMatchObject({
      name: "aps-gen",
      version: JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).version,
    });
    expect(URL.canParse(driver.informationUri)).toBe(true);
    const listed = (await run("rules")).out.map((line) => line.split(/\s+/)[0]);
    expect(listed.length).toBeGreaterThan(50);
    expect(driver.rules.map((rule: { id: string }) => rule.id)).toEqual(listed);

    const results = log.runs[0].results;
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({
      ruleId: "APS027",
      level: "error",
      message: { text: expect.stringContaining('"required"') },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: "bad/widget.schema" },
            region: {
              startLine: badValue.line,
              startColumn: badValue.col,
              endLine: badValue.endLine,
              endColumn: badValue.endCol,
            },
          },
        },
      ],
    });
    expect(driver.rules[results[0].ruleIndex].id).toBe("APS027");
  });

  it("is valid with no results for clean declarations, exit 0", async () => {
    const r = await run("check", "--types", "clean", "--format", "sarif");
    expect(r.code).toBe(0);
    const log = JSON.parse(r.out.join("\n"));
    expect(valid(log)).toEqual([]);
    expect(log.runs[0].results).toEqual([]);
  });

  it("the schema check can fail: a wrong level and a missing message are caught", async () => {
    const log = JSON.parse((await run("check", "--types", "bad", "--format", "sarif")).out.join("\n"));
    log.runs[0].results[0].level = "fatal";
    delete log.runs[0].results[0].message;
    expect(valid(log).join("\n")).toMatch(/level[\s\S]*message|message[\s\S]*level/);
  });

  it("writes file URIs relative to the working folder, percent-encoded; absolute paths as file: URIs", () => {
    expect(artifactUri("bad/widget.schema")).toBe("bad/widget.schema");
    expect(artifactUri("my types/a#1.schema")).toBe("my%20types/a%231.schema");
    expect(artifactUri("/tmp/x y/a.schema")).toBe("file:///tmp/x%20y/a.schema");
  });
});

describe("--format github", () => {
  it("prints one workflow command per finding, with its place, end and code", async () => {
    const r = await run("check", "--types", "bad", "--format", "github");
    expect(r.code).toBe(1);
    expect(r.out).toHaveLength(1);
    const { line, col, endLine, endCol } = badValue;
    expect(r.out[0]).toMatch(
      new RegExp(
        `^::error file=bad/widget\\.schema,line=${line},col=${col},endLine=${endLine},endColumn=${endCol},title=APS027::property "label": "required" `,
      ),
    );
    expect(r.err.at(-1)).toMatch(/^✗/);
  });

  it("prints warnings as ::warning and nothing at all for clean declarations", async () => {
    const warned = await run("check", "--types", "bad", "--format", "github", "--no-core");
    expect(
      warned.out.some((l) => l.startsWith("::warning file=bad/widget.schema,") && l.includes("title=APS025::")),
    ).toBe(true);
    const clean = await run("check", "--types", "clean", "--format", "github");
    expect(clean).toMatchObject({ code: 0, out: [] });
  });

  it("escapes % CR LF in the message and also : and , in properties, end to end", async () => {
    // A type name with %, a line break, and a folder with , and : in its name: APS022 quotes the name.
    const folder = "we,ird:dir";
    mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(
      join(root, folder, "t.schema"),
      JSON.stringify({
        apsVersion: "2.0",
        name: "100%\nsure",
        id: "http://t.example/t/1.0",
        implements: ["http://aps-standard.org/types/core/resource/1.0"],
      }),
    );
    const r = await run("check", "--types", folder, "--format", "github");
    expect(r.code).toBe(1);
    const line = r.out.find((l) => l.includes("title=APS022"));
    expect(line).toMatch(
      /^::error file=we%2Cird%3Adir\/t\.schema,line=1,col=\d+,endLine=1,endColumn=\d+,title=APS022::type name "100%25%0Asure" must/,
    );
    expect(r.out.every((l) => !l.includes("\n") && !l.includes("\r"))).toBe(true);
  });

  it("escapes as the Actions toolkit does", () => {
    expect(escapeData("50% done\r\nnext: a,b")).toBe("50%25 done%0D%0Anext: a,b");
    expect(escapeProperty("50% done\r\nnext: a,b")).toBe("50%25 done%0D%0Anext%3A a%2Cb");
    const d: Diagnostic = {
      code: "APS093",
      rule: "error-response-missing",
      severity: "warning",
      message: "m%",
      file: "a,b:c.schema",
      line: 3,
      col: 4,
    };
    expect(githubAnnotation(d)).toBe("::warning file=a%2Cb%3Ac.schema,line=3,col=4,title=APS093::m%25");
  });
});

describe("usage and exit codes", () => {
  it("a bad --format value is one line on stderr and exit 2", async () => {
    for (const command of ["check", "build"]) {
      const r = await run(command, "--types", "clean", "--format", "xml");
      expect(r.code).toBe(2);
      expect(r.out).toEqual([]);
      expect(r.err).toHaveLength(1);
      expect(r.err[0]).toBe(
        'aps-gen: --format "xml" is not one of text, json, sarif, github; see aps-gen <command> --help',
      );
    }
  });

  it("validate takes text and json only: sarif or github is one line and exit 2", async () => {
    const r = await run("validate", "--types", "clean", "--type", "widget", "--format", "sarif", "-");
    expect(r).toMatchObject({ code: 2, out: [] });
    expect(r.err).toEqual(["aps-gen validate: --format sarif is for check and build; validate prints text or json"]);
  });

  it("unusable input is exit 2 with one line on stderr and no document on stdout", async () => {
    for (const format of ["json", "sarif", "github"]) {
      const r = await run("check", "--types", "nowhere", "--format", format);
      expect(r).toEqual({ code: 2, out: [], err: ["aps-gen: nowhere: no such file or directory."] });
    }
  });

  it("warnings fail only with --warn-as-error, whatever the format", async () => {
    const plain = await run("check", "--types", "clean", "--no-core", "--format", "sarif");
    expect(JSON.parse(plain.out.join("\n")).runs[0].results.map((x: { level: string }) => x.level)).toContain(
      "warning",
    );
    expect(plain.code).toBe(0);
    expect((await run("check", "--types", "clean", "--no-core", "--format", "sarif", "--warn-as-error")).code).toBe(1);
  });
});
