import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CodeActionRequest,
  CompletionRequest,
  DefinitionRequest,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  HoverRequest,
  type CompletionItem,
  type Diagnostic,
  type Location,
  type MarkupContent,
  type Position,
  type TextEdit,
  type WorkspaceEdit,
} from "vscode-languageserver/node";
import { runCli } from "../helpers/cli-run.ts";
import { LspSession, uriOf } from "../helpers/lsp-client.ts";
import { repoRoot } from "../helpers/paths.ts";
import { until } from "../helpers/until.ts";

/**
 * Issue 31: `aps-gen lsp` driven as an editor drives it, over stdin/stdout: diagnostics with
 * codes from the unsaved text (and cleared once fixed), hover, go to definition across files and
 * packages, completion, and quick fixes from the compiler's did-you-mean.
 */
const BASE_ID = "http://shop.example.com/types/base/1.0";
const RESOURCE_ID = "http://aps-standard.org/types/core/resource/1.0";

const base = `{
  "apsVersion": "2.0",
  "name": "Base",
  "id": "${BASE_ID}",
  "implements": ["${RESOURCE_ID}"],
  "properties": {
    "quota": { "type": "integer", "required": true, "unit": "mb", "title": "Quota" }
  }
}
`;

const widget = `{
  "apsVersion": "2.0",
  "name": "Widget",
  "id": "http://shop.example.com/types/widget/1.0",
  "implements": [
    "${BASE_ID}"
  ],
  "properties": {
    "quota": {
      "type": "integer",
      "requried": true
    },
    "contact": {
      "type": "string",
      "format": "email"
    },
    "note": { "type": "strng" },
    "hours": { "type": "Window" }
  },
  "structures": {
    "Window": {
      "type": "object",
      "properties": {
        "opens": { "type": "string", "format": "time" }
      }
    }
  },
  "relations": {
    "home": {
      "type": "http://shop.example.com/types/bse/1.0"
    },
    "site": { "type": "http://shop.example.com/types/site/1.0" }
  }
}
`;

const appMeta = `<?xml version="1.0" encoding="UTF-8"?>
<application version="2.0" xmlns="http://aps-standard.org/ns/2">
    <id>http://shop.example.com/sites</id>
    <name>Sites</name>
    <version>1.0</version>
    <release>1</release>
    <service id="sites">
        <code engine="php" path="scripts/sites.php"/>
    </service>
</application>
`;

const sitesPhp = `<?php
require "aps/2/runtime.php";

/**
 * @type("http://shop.example.com/types/site/1.0")
 * @implements("${BASE_ID}")
 */
class sites extends \\APS\\ResourceBase {
    /**
     * @type(string)
     * @requried
     */
    public $hostName;
}
`;

const root = mkdtempSync(join(tmpdir(), "aps-lsp-"));
const baseFile = join(root, "types/shop/base.schema");
const widgetFile = join(root, "types/shop/widget.schema");
const phpFile = join(root, "types/sites/scripts/sites.php");
let session: LspSession;

/** The position of the `nth` occurrence of `needle` in `text`, plus `shift` characters. */
function positionOf(text: string, needle: string, shift = 0, nth = 0): Position {
  let offset = -1;
  for (let i = 0; i <= nth; i++) offset = text.indexOf(needle, offset + 1);
  if (offset < 0) throw new Error(`"${needle}" is not in the text`);
  offset += shift;
  const before = text.slice(0, offset);
  return { line: before.split("\n").length - 1, character: offset - before.lastIndexOf("\n") - 1 };
}

function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const lines = text.split("\n");
  const offsetOf = (p: Position) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  return [...edits]
    .sort((a, b) => offsetOf(b.range.start) - offsetOf(a.range.start))
    .reduce((t, e) => t.slice(0, offsetOf(e.range.start)) + e.newText + t.slice(offsetOf(e.range.end)), text);
}

let version = 1;
async function edit(path: string, text: string): Promise<void> {
  await session.connection.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri: uriOf(path), version: ++version },
    contentChanges: [{ text }],
  });
}

async function hover(path: string, position: Position): Promise<string | undefined> {
  const result = await session.connection.sendRequest(HoverRequest.type, {
    textDocument: { uri: uriOf(path) },
    position,
  });
  return result ? (result.contents as MarkupContent).value : undefined;
}

async function definition(path: string, position: Position): Promise<Location | undefined> {
  const result = await session.connection.sendRequest(DefinitionRequest.type, {
    textDocument: { uri: uriOf(path) },
    position,
  });
  return (result ?? undefined) as Location | undefined;
}

async function completions(path: string, position: Position): Promise<CompletionItem[]> {
  const result = await session.connection.sendRequest(CompletionRequest.type, {
    textDocument: { uri: uriOf(path) },
    position,
  });
  return Array.isArray(result) ? result : (result?.items ?? []);
}

async function quickFixEdits(path: string, diagnostic: Diagnostic): Promise<TextEdit[]> {
  const actions = await session.connection.sendRequest(CodeActionRequest.type, {
    textDocument: { uri: uriOf(path) },
    range: diagnostic.range,
    context: { diagnostics: [diagnostic] },
  });
  return (actions ?? []).flatMap((a) => ("edit" in a ? ((a.edit as WorkspaceEdit).changes?.[uriOf(path)] ?? []) : []));
}

beforeAll(async () => {
  mkdirSync(join(root, "types/shop"), { recursive: true });
  mkdirSync(join(root, "types/sites/scripts"), { recursive: true });
  writeFileSync(baseFile, base);
  writeFileSync(widgetFile, widget);
  writeFileSync(join(root, "types/sites/APP-META.xml"), appMeta);
  writeFileSync(phpFile, sitesPhp);
  session = await LspSession.start(root);
  for (const [path, text, languageId] of [
    [widgetFile, widget, "json"],
    [baseFile, base, "json"],
    [phpFile, sitesPhp, "php"],
  ] as const) {
    await session.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri: uriOf(path), languageId, version, text },
    });
  }
}, 30_000);

afterAll(async () => {
  if (session.child.exitCode === null) session.child.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

describe("aps-gen lsp", () => {
  it("publishes the compiler's diagnostics with their codes and ranges", async () => {
    const list = await session.diagnosticsOf(widgetFile, (l) => l.some((d) => d.code === "APS031"));
    const misspelt = list.find((d) => d.code === "APS031")!;
    expect(misspelt).toMatchObject({
      severity: 1,
      source: "aps-gen",
      range: { start: positionOf(widget, "requried"), end: positionOf(widget, "requried", "requried".length) },
    });
    expect(misspelt.message).toContain('did you mean "required"');
    const external = list.find((d) => d.code === "APS025")!;
    expect(external.severity).toBe(2);
    expect(external.range.start).toEqual(positionOf(widget, "http://shop.example.com/types/bse/1.0"));
    // PHP declarations are compiled too: a misspelt annotation in the script.
    const php = await session.diagnosticsOf(phpFile, (l) => l.length > 0);
    const tag = php.find((d) => d.code === "APS013");
    expect(tag?.message).toContain("@requried");
    expect(tag?.range).toEqual({
      start: positionOf(sitesPhp, "@requried"),
      end: positionOf(sitesPhp, "@requried", "@requried".length),
    });
    // A clean file gets no diagnostics.
    expect(session.diagnostics.get(uriOf(baseFile))?.list ?? []).toEqual([]);
  });

  it("offers the did-you-mean as a quick fix, and none for a diagnostic without one", async () => {
    const list = await session.diagnosticsOf(widgetFile, (l) => l.some((d) => d.code === "APS031"));
    const fixed = applyEdits(widget, await quickFixEdits(widgetFile, list.find((d) => d.code === "APS031")!));
    expect(fixed).toBe(widget.replace('"requried"', '"required"'));
    const relinked = applyEdits(widget, await quickFixEdits(widgetFile, list.find((d) => d.code === "APS025")!));
    expect(relinked).toBe(widget.replace("types/bse/1.0", "types/base/1.0"));
    const typed = applyEdits(widget, await quickFixEdits(widgetFile, list.find((d) => d.code === "APS042")!));
    expect(typed).toBe(widget.replace('"strng"', '"string"'));
    const php = await session.diagnosticsOf(phpFile, (l) => l.length > 0);
    const phpFix = await quickFixEdits(phpFile, php.find((d) => d.code === "APS013")!);
    expect(applyEdits(sitesPhp, phpFix)).toBe(sitesPhp.replace("@requried", "@required"));
    const withoutSuggestion: Diagnostic = { ...list[0]!, data: undefined };
    expect(await quickFixEdits(widgetFile, withoutSuggestion)).toEqual([]);
  });

  it("compiles the unsaved text of an open document and clears diagnostics once it is fixed", async () => {
    await session.diagnosticsOf(widgetFile, (l) => l.length > 0);
    let seen = session.publishedCount(widgetFile);
    // An error only in the editor's text, not on disk.
    const broken = widget.replace('"format": "email"', '"format": "e-mail"');
    await edit(widgetFile, broken);
    const withFormat = await session.diagnosticsOf(widgetFile, (l) => l.some((d) => d.code === "APS046"), seen);
    expect(withFormat.find((d) => d.code === "APS046")!.range.start.line).toBe(positionOf(broken, '"e-mail"').line);
    expect(readFileSync(widgetFile, "utf8")).toBe(widget);
    seen = session.publishedCount(widgetFile);
    const fixed = widget
      .replace('"requried"', '"required"')
      .replace("types/bse/1.0", "types/base/1.0")
      .replace('"strng"', '"string"');
    await edit(widgetFile, fixed);
    expect(await session.diagnosticsOf(widgetFile, () => true, seen)).toEqual([]);
  });

  it("hovers a property with its resolved type, its attributes and what it replaces of its parent", async () => {
    const text = widget.replace('"requried"', '"required"');
    await edit(widgetFile, text);
    const shown = await hover(widgetFile, positionOf(text, '"quota"', 2));
    expect(shown).toContain("**property `quota`** of `Widget`: `integer`");
    expect(shown).toContain("`required`");
    expect(shown).toMatch(
      /Replaces `quota` inherited from `Base` \(`http:\/\/shop\.example\.com\/types\/base\/1\.0`\): `integer` · `required` · `unit: mb`/,
    );
    const contact = await hover(widgetFile, positionOf(text, '"contact"', 3));
    expect(contact).toContain("`format: email`");
    expect(contact).not.toContain("Replaces");
  });

  it("hovers a type id with its name, package and inherited properties", async () => {
    const text = widget.replace('"requried"', '"required"');
    const shown = await hover(widgetFile, positionOf(text, BASE_ID, 10));
    expect(shown).toContain(`**Base** \`${BASE_ID}\``);
    expect(shown).toContain("package `shop`");
    expect(shown).toContain("- `quota`: `integer` · required · unit: mb");
    const core = await hover(baseFile, positionOf(base, RESOURCE_ID, 5));
    expect(core).toContain("package `core`");
    expect(await hover(widgetFile, positionOf(text, '"2.0"', 1))).toBeUndefined();
  });

  it("hovers a property of a PHP class by its variable or its annotation", async () => {
    expect(await hover(phpFile, positionOf(sitesPhp, "$hostName", 3))).toContain(
      "**property `hostName`** of `sites`: `string`",
    );
    expect(await hover(phpFile, positionOf(sitesPhp, "@type(string)", 2))).toContain(
      "**property `hostName`** of `sites`: `string`",
    );
    expect(await hover(phpFile, positionOf(sitesPhp, "ResourceBase", 2))).toBeUndefined();
  });

  it("hovers and goes to a structure named in a property's type, and hovers its properties", async () => {
    const text = widget.replace('"requried"', '"required"');
    const shown = await hover(widgetFile, positionOf(text, '"Window"', 2));
    expect(shown).toContain("**structure `Window`** of `Widget`");
    expect(shown).toContain("- `opens`: `string` · format: time");
    expect(await definition(widgetFile, positionOf(text, '"Window"', 2))).toMatchObject({
      uri: uriOf(widgetFile),
      range: { start: positionOf(text, '"Window"', 0, 1) },
    });
    expect(await hover(widgetFile, positionOf(text, '"opens"', 2))).toContain(
      "**property `opens`** of structure `Window` of `Widget`: `string`",
    );
  });

  it("goes to the declaration of a type id across files and packages, core types included", async () => {
    const text = widget.replace('"requried"', '"required"');
    const toBase = await definition(widgetFile, positionOf(text, BASE_ID, 10));
    // The declaration's place is its id, as diagnostics give it (at the opening quote).
    expect(toBase).toEqual({
      uri: uriOf(baseFile),
      range: { start: positionOf(base, BASE_ID, -1), end: positionOf(base, BASE_ID, -1) },
    });
    const fromPhp = await definition(phpFile, positionOf(sitesPhp, BASE_ID, 3));
    expect(fromPhp?.uri).toBe(uriOf(baseFile));
    // A type declared by a PHP class of another package: its place is the class's type id.
    const toPhp = await definition(widgetFile, positionOf(text, "types/site/1.0"));
    expect(toPhp).toMatchObject({
      uri: uriOf(phpFile),
      range: { start: positionOf(sitesPhp, "http://shop.example.com/types/site/1.0", -1) },
    });
    const toCore = await definition(baseFile, positionOf(base, RESOURCE_ID, 3));
    expect(toCore?.uri).toBe(uriOf(join(repoRoot, "types/core/resource.schema")));
    // A type id among no inputs has no declaration to go to.
    expect(await definition(widgetFile, positionOf(widget, "types/bse/1.0"))).toBeUndefined();
  });

  it("completes attribute names in a property, format values and type ids", async () => {
    const newKey = widget.replace('"type": "string",', '"type": "string",\n      "re');
    await edit(widgetFile, newKey);
    const attributes = (await completions(widgetFile, positionOf(newKey, '"re', 3))).map((i) => i.label);
    expect(attributes).toEqual(expect.arrayContaining(["required", "readonly", "format", "unit", "maxLength"]));
    expect(attributes).not.toContain("collection");
    const relationKey = widget.replace(
      '"type": "http://shop.example.com/types/bse/1.0"',
      '"type": "http://shop.example.com/types/bse/1.0",\n      "co',
    );
    await edit(widgetFile, relationKey);
    expect((await completions(widgetFile, positionOf(relationKey, '"co', 3, 1))).map((i) => i.label)).toEqual(
      expect.arrayContaining(["collection", "required"]),
    );
    const typing = widget.replace('"format": "email"', '"format": "em"');
    await edit(widgetFile, typing);
    const formats = await completions(widgetFile, positionOf(typing, '"em"', 3));
    expect(formats.map((i) => i.label)).toEqual(expect.arrayContaining(["email", "date-time", "uri"]));
    expect(formats.map((i) => i.label)).not.toContain("required");
    // Inside the quotes, the proposal replaces what is between them.
    expect(formats.find((i) => i.label === "email")?.textEdit).toEqual({
      range: { start: positionOf(typing, '"em"', 1), end: positionOf(typing, '"em"', 3) },
      newText: "email",
    });
    const typeIds = (await completions(widgetFile, positionOf(typing, "http://shop.example.com/types/bse", 8))).map(
      (i) => i.label,
    );
    expect(typeIds).toEqual(expect.arrayContaining([BASE_ID, RESOURCE_ID, "http://shop.example.com/types/site/1.0"]));
    expect(typeIds).not.toContain("email");
    const propertyType = (await completions(widgetFile, positionOf(typing, '"integer"', 2))).map((i) => i.label);
    expect(propertyType).toEqual(expect.arrayContaining(["string", "integer", BASE_ID]));
  });

  it("ends with exit code 0 after shutdown and exit", async () => {
    expect(await session.stop()).toBe(0);
    expect(session.stderr).toBe("");
  });
});

describe("aps-gen lsp on unusable inputs", () => {
  it("says so in the editor when the types the editor names do not exist, and keeps running", async () => {
    const lost = await LspSession.start(root, [], { types: ["no-such-folder"] });
    try {
      await until("the message", () => lost.shown.length > 0);
      expect(lost.shown).toEqual(["aps-gen: no-such-folder: no such file or directory."]);
      expect(
        await lost.connection.sendRequest(HoverRequest.type, {
          textDocument: { uri: uriOf(baseFile) },
          position: { line: 3, character: 12 },
        }),
      ).toBeNull();
      expect(await lost.stop()).toBe(0);
    } finally {
      if (lost.child.exitCode === null) lost.child.kill("SIGKILL");
    }
  });

  it("takes the editor's initializationOptions.types, relative to the workspace", async () => {
    const scoped = await LspSession.start(root, [], { types: ["types/shop/base.schema"] });
    try {
      await scoped.connection.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri: uriOf(baseFile), languageId: "json", version: 1, text: base },
      });
      await until(
        "the first compile",
        async () =>
          (await scoped.connection.sendRequest(HoverRequest.type, {
            textDocument: { uri: uriOf(baseFile) },
            position: positionOf(base, BASE_ID, 3),
          })) !== null,
      );
      // Only base.schema is loaded: the widget's errors are not reported.
      expect(scoped.diagnostics.has(uriOf(widgetFile))).toBe(false);
      expect(await scoped.stop()).toBe(0);
    } finally {
      if (scoped.child.exitCode === null) scoped.child.kill("SIGKILL");
    }
  });

  it("refuses --types naming nothing, in one line, with exit code 2", async () => {
    const r = await runCli(["lsp", "--types", "no-such-folder"], root);
    expect(r.code).toBe(2);
    expect(r.err).toEqual(["aps-gen lsp: no-such-folder: no such file or directory."]);
    expect(r.out).toEqual([]);
  });
});
