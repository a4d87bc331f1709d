import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { strToU8, zipSync } from "fflate";
import { afterAll, describe, expect, it } from "vitest";
import { loadInputs } from "../../generator/load/load-inputs.ts";
import { InputError } from "../../generator/load/package-source.ts";

const dir = mkdtempSync(join(tmpdir(), "aps-gen-load-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const schema = (name: string) =>
  JSON.stringify({
    apsVersion: "2.0",
    name,
    id: `http://t.example/${name}/1.0`,
    implements: ["http://aps-standard.org/types/core/resource/1.0"],
  });
const appMeta = (services: string) => `<?xml version="1.0"?>
<application version="2.0" xmlns="http://aps-standard.org/ns/2">
  <id>http://t.example/app</id>
  <name>t</name>
  <version>1.0</version>
  <release>1</release>
${services}
</application>
`;

describe("loadInputs", () => {
  it("loads a package archive, also when everything sits in one top folder", () => {
    const zipPath = join(dir, "demo-1.0-1.app.zip");
    writeFileSync(
      zipPath,
      zipSync({
        "demo/APP-META.xml": strToU8(
          appMeta('  <service id="things">\n    <schema path="schemas/thing.schema"/>\n  </service>'),
        ),
        "demo/schemas/thing.schema": strToU8(schema("thing")),
        "demo/scripts/thing.php": strToU8("<?php"),
      }),
    );
    const result = loadInputs([zipPath], { cwd: dir, includeCore: false });
    expect(result.diagnostics).toEqual([]);
    const pkg = result.packages[0]!;
    expect(pkg.name).toBe("demo-1.0-1");
    expect(pkg.documents.map((d) => [d.doc.file.path, d.service])).toEqual([
      ["demo-1.0-1.app.zip/schemas/thing.schema", "things"],
    ]);
  });

  it("reports a missing schema at the <schema> line of APP-META.xml and goes on", () => {
    const pkg = join(dir, "missing");
    mkdirSync(join(pkg, "schemas"), { recursive: true });
    writeFileSync(
      join(pkg, "APP-META.xml"),
      appMeta(
        '  <service id="a">\n    <schema path="schemas/a.schema"/>\n  </service>\n  <service id="b">\n    <schema path="schemas/b.schema"/>\n  </service>',
      ),
    );
    writeFileSync(join(pkg, "schemas", "b.schema"), schema("b"));
    const result = loadInputs(["missing"], { cwd: dir, includeCore: false });
    expect(result.diagnostics.map((d) => [d.code, d.file, d.line])).toEqual([["APS004", "missing/APP-META.xml", 8]]);
    expect(result.packages[0]!.documents).toHaveLength(1);
  });

  it("refuses schema paths that climb out of the package", () => {
    const pkg = join(dir, "escape");
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, "APP-META.xml"), appMeta('  <service id="a"><schema path="../../etc/passwd"/></service>'));
    const result = loadInputs(["escape"], { cwd: dir, includeCore: false });
    expect(result.diagnostics[0]).toMatchObject({ code: "APS004" });
    expect(result.diagnostics[0]!.message).toContain("outside the package");
  });

  it("reports malformed XML and a foreign namespace as APS003", () => {
    const bad = join(dir, "badxml");
    mkdirSync(bad, { recursive: true });
    writeFileSync(
      join(bad, "APP-META.xml"),
      '<application xmlns="http://aps-standard.org/ns/2">\n<service id="a" & />\n</application>',
    );
    const aps1 = join(dir, "aps1");
    mkdirSync(aps1, { recursive: true });
    writeFileSync(join(aps1, "APP-META.xml"), '<application xmlns="http://apstandard.com/ns/1" version="1.2"/>');
    const result = loadInputs(["badxml", "aps1"], { cwd: dir, includeCore: false });
    expect(result.diagnostics.map((d) => [d.code, d.file])).toEqual([
      ["APS003", "badxml/APP-META.xml"],
      ["APS003", "aps1/APP-META.xml"],
    ]);
  });

  it("finds packages and plain declaration folders below a folder", () => {
    const root = join(dir, "tree");
    mkdirSync(join(root, "plain"), { recursive: true });
    mkdirSync(join(root, "app", "schemas"), { recursive: true });
    writeFileSync(join(root, "plain", "one.schema"), schema("one"));
    writeFileSync(
      join(root, "app", "APP-META.xml"),
      appMeta('<service id="x"><schema path="schemas/x.schema"/></service>'),
    );
    writeFileSync(join(root, "app", "schemas", "x.schema"), schema("x"));
    const result = loadInputs(["tree"], { cwd: dir, includeCore: false });
    expect(result.packages.map((p) => [p.name, p.documents.length, Boolean(p.meta)])).toEqual([
      ["app", 1, true],
      ["plain", 1, false],
    ]);
  });

  it("throws InputError for a path that does not exist or an unreadable archive", () => {
    expect(() => loadInputs(["nope"], { cwd: dir })).toThrow(InputError);
    writeFileSync(join(dir, "broken.app.zip"), "not a zip");
    expect(() => loadInputs(["broken.app.zip"], { cwd: dir })).toThrow(/cannot read the archive/);
  });
});
