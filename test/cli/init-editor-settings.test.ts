/**
 * Issue 31: `aps-gen init` gives the project VS Code settings that check declaration files
 * against the schema aps-gen ships, and merges them into the vendor's settings.json without
 * losing a setting or a comment; a file it cannot merge safely is left as it is, with one note.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "jsonc-parser";
import { afterAll, describe, expect, it } from "vitest";
import {
  DECLARATION_FILE_MATCH,
  DECLARATION_SCHEMA_URL,
  mergeEditorSettings,
  settingsToAdd,
} from "../../cli/init/editor-settings.ts";
import { main } from "../../cli/main.ts";
import { repoRoot } from "../helpers/paths.ts";

const root = mkdtempSync(join(tmpdir(), "aps-init-editor-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Settings {
  "json.schemas": { fileMatch: string[]; url: string }[];
  "files.associations": Record<string, string>;
  [key: string]: unknown;
}

const read = (text: string) => parse(text, [], { allowTrailingComma: true }) as Settings;

function merged(existing: string | undefined): { text: string | undefined; added: readonly string[] } {
  const result = mergeEditorSettings(existing);
  if ("problem" in result) throw new Error(`unexpected problem: ${result.problem}`);
  return result;
}

describe("the settings init merges", () => {
  it("points at a schema the package ships, for .schema and .schema.gen files, opened as JSON with comments", () => {
    const { text } = merged(undefined);
    const settings = read(text!);
    expect(settings["json.schemas"]).toEqual([
      { fileMatch: ["**/*.schema", "**/*.schema.gen"], url: DECLARATION_SCHEMA_URL },
    ]);
    expect(settings["files.associations"]).toEqual({ "*.schema": "jsonc", "*.schema.gen": "jsonc" });
    // The URL is a file of the package as npm installs it: under a folder package.json ships.
    const inPackage = DECLARATION_SCHEMA_URL.replace(/^\.\/node_modules\/aps-gen\//, "");
    expect(existsSync(join(repoRoot, inPackage))).toBe(true);
    const files = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { files: string[] }).files;
    expect(files.some((f) => inPackage.startsWith(f))).toBe(true);
  });

  it("adds to the vendor's settings, keeping their settings, schemas, associations and comments", () => {
    const vendor = [
      "{",
      "    // my theme",
      '    "workbench.colorTheme": "Solarized Light",',
      '    "json.schemas": [',
      '        { "fileMatch": ["/mine.json"], "url": "./mine.schema.json" }, // mine',
      "    ],",
      '    "files.associations": { "*.schema": "json" },',
      "}",
      "",
    ].join("\n");
    const { text, added } = merged(vendor);
    expect(added).toEqual(["json.schemas", "files.associations"]);
    expect(text).toContain("// my theme");
    expect(text).toContain("// mine");
    const settings = read(text!);
    expect(settings["workbench.colorTheme"]).toBe("Solarized Light");
    expect(settings["json.schemas"]).toEqual([
      { fileMatch: ["/mine.json"], url: "./mine.schema.json" },
      { fileMatch: [...DECLARATION_FILE_MATCH], url: DECLARATION_SCHEMA_URL },
    ]);
    // The vendor's choice of language for *.schema stands; only the missing one is added.
    expect(settings["files.associations"]).toEqual({ "*.schema": "json", "*.schema.gen": "jsonc" });
    // Added lines take the file's four-space indentation.
    expect(text).toMatch(/\n {4}"files\.associations"/);
    // A second merge has nothing to add.
    expect(merged(text).text).toBeUndefined();
  });

  it("completes the fileMatch of an entry for the schema that lacks a pattern", () => {
    const { text, added } = merged(
      JSON.stringify({
        "json.schemas": [{ fileMatch: ["**/*.schema"], url: DECLARATION_SCHEMA_URL }],
        "files.associations": { "*.schema": "jsonc", "*.schema.gen": "jsonc" },
      }),
    );
    expect(added).toEqual(["json.schemas fileMatch"]);
    expect(read(text!)["json.schemas"]).toEqual([
      { fileMatch: ["**/*.schema", "**/*.schema.gen"], url: DECLARATION_SCHEMA_URL },
    ]);
  });

  it.each([
    ["not JSON", '{ "editor.tabSize": 2 ', /not valid JSON/],
    ["an array", "[]", /does not hold a JSON object/],
    ["json.schemas that is not an array", '{ "json.schemas": {} }', /"json.schemas" is not an array/],
    [
      "files.associations that is not an object",
      '{ "files.associations": [] }',
      /"files.associations" is not an object/,
    ],
  ])("does not touch settings that are %s", (_what, text, problem) => {
    const result = mergeEditorSettings(text);
    expect("problem" in result && result.problem).toMatch(problem);
  });
});

describe("aps-gen init and .vscode/settings.json", () => {
  async function init(project: string) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(
      ["init", project, "--package", "types/examples/cloudmail"],
      { out: (l) => out.push(l), err: (l) => err.push(l) },
      repoRoot,
    );
    return { code, out, err };
  }

  it("writes the settings, merges them into the vendor's file, then keeps it", async () => {
    const project = join(root, "fresh");
    const first = await init(project);
    expect(first.code, first.err.join("\n")).toBe(0);
    expect(first.out).toContain("  wrote  .vscode/settings.json");
    const written = readFileSync(join(project, ".vscode/settings.json"), "utf8");
    expect(read(written)["json.schemas"][0]!.url).toBe(DECLARATION_SCHEMA_URL);

    const vendor = '{\n  // tabs are wider here\n  "editor.tabSize": 8\n}\n';
    writeFileSync(join(project, ".vscode/settings.json"), vendor);
    const second = await init(project);
    expect(second.code, second.err.join("\n")).toBe(0);
    expect(second.out).toContain(
      "  note   .vscode/settings.json: added json.schemas, files.associations for the declaration schema; the rest is as you left it",
    );
    const mergedText = readFileSync(join(project, ".vscode/settings.json"), "utf8");
    expect(mergedText).toContain("// tabs are wider here");
    expect(read(mergedText)["editor.tabSize"]).toBe(8);
    expect(read(mergedText)["files.associations"]["*.schema.gen"]).toBe("jsonc");

    const third = await init(project);
    expect(third.out).toContain("  kept   .vscode/settings.json (yours; not overwritten)");
    expect(readFileSync(join(project, ".vscode/settings.json"), "utf8")).toBe(mergedText);
  }, 120_000);

  it("leaves a settings file it cannot read as it is and says in one line what to add", async () => {
    const project = join(root, "broken");
    mkdirSync(join(project, ".vscode"), { recursive: true });
    const broken = '{ "editor.tabSize": 2,, }';
    writeFileSync(join(project, ".vscode/settings.json"), broken);
    const r = await init(project);
    expect(r.code, r.err.join("\n")).toBe(0);
    expect(readFileSync(join(project, ".vscode/settings.json"), "utf8")).toBe(broken);
    const notes = r.out.filter((l) => l.includes(".vscode/settings.json"));
    expect(notes).toEqual([
      `  note   .vscode/settings.json: not changed, since it is not valid JSON (property name expected at line 1, column 23); to check declaration files in VS Code, add ${settingsToAdd()}`,
    ]);
  }, 120_000);
});
