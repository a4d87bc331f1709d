import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compile } from "../../generator/pipeline.ts";

/**
 * Issue 31: the language server compiles an editor's unsaved texts. `overlay` (absolute path ->
 * text) is read in place of the files on disk: single files, plain folders and APP-META packages.
 */
const dir = mkdtempSync(join(tmpdir(), "aps-overlay-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const declaration = (properties: object) =>
  JSON.stringify({
    apsVersion: "2.0",
    name: "widget",
    id: "http://fixtures.example/widget/1.0",
    implements: ["http://aps-standard.org/types/core/resource/1.0"],
    properties,
  });

describe("compile with an overlay of unsaved texts", () => {
  it("reads the overlay's text of a file in place of the file's, and the file when it has none", () => {
    const folder = join(dir, "plain");
    mkdirSync(folder);
    const path = join(folder, "widget.schema");
    writeFileSync(path, declaration({ label: { type: "string" } }));
    const unsaved = new Map([[path, declaration({ label: { type: "string", requried: true } })]]);
    expect(compile([path], { cwd: dir }).diagnostics).toEqual([]);
    expect(compile([path], { cwd: dir, overlay: unsaved }).diagnostics.map((d) => d.code)).toEqual(["APS031"]);
    expect(compile([folder], { cwd: dir, overlay: unsaved }).diagnostics.map((d) => d.code)).toEqual(["APS031"]);
    expect(
      compile([folder], { cwd: dir, overlay: new Map([[join(dir, "elsewhere.schema"), "{"]]) }).diagnostics,
    ).toEqual([]);
  });

  it("reads an unsaved APP-META.xml and the schema it names", () => {
    const pkg = join(dir, "pkg");
    mkdirSync(join(pkg, "schemas"), { recursive: true });
    const meta = (schema: string) =>
      `<application version="2.0" xmlns="http://aps-standard.org/ns/2"><id>http://fixtures.example/app</id><name>App</name><version>1.0</version><release>1</release><service id="widgets"><schema path="schemas/${schema}"/></service></application>`;
    writeFileSync(join(pkg, "APP-META.xml"), meta("widget.schema"));
    writeFileSync(join(pkg, "schemas/widget.schema"), declaration({ label: { type: "string" } }));
    const onDisk = compile([pkg], { cwd: dir });
    expect(onDisk.model.types.has("http://fixtures.example/widget/1.0")).toBe(true);
    expect(onDisk.diagnostics.map((d) => d.message).join("\n")).not.toContain("schema file");
    const renamed = compile([pkg], {
      cwd: dir,
      overlay: new Map([[join(pkg, "APP-META.xml"), meta("gadget.schema")]]),
    });
    expect(renamed.diagnostics.map((d) => d.message).join("\n")).toContain('schema file "schemas/gadget.schema"');
  });
});
