import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { zipSync } from "fflate";
import { Engine } from "php-parser";
import { afterAll, describe, expect, it, vi } from "vitest";
import { formatDiagnostic, type Diagnostic } from "../../generator/diagnostics/diagnostic.ts";
import { parseTree } from "jsonc-parser";
import type { JsonNode } from "../../generator/load/json-document.ts";
import { loadInputs } from "../../generator/load/load-inputs.ts";
import { plainValue } from "../../generator/load/php/located-json.ts";
import { schemaGenText } from "../../generator/load/php/php-service.ts";
import { emitAll } from "../../generator/build.ts";
import { compile } from "../../generator/pipeline.ts";
import { corpusAvailable, corpusRoot, corpusSkipReason, repoRoot } from "../helpers/paths.ts";
import { filesOf } from "../helpers/files-of.ts";

const fixtures = join(repoRoot, "test/fixtures/php");
const rel = (p: string) => relative(repoRoot, p);
const show = (ds: readonly Diagnostic[]) => ds.map(formatDiagnostic).join("\n");
const full = rel(join(fixtures, "full"));

describe("PHP-annotated packages: the declarations aps build writes", () => {
  const loaded = loadInputs([full], { cwd: repoRoot, includeCore: false });
  const pkg = loaded.packages[0]!;

  it("loads every service of the fixture from PHP with no finding", () => {
    expect(show(loaded.diagnostics)).toBe("");
    expect(pkg.documents.map((d) => [d.service, d.php?.script])).toEqual([
      ["app", "scripts/app.php"],
      ["widgets", "scripts/widgets.php"],
    ]);
  });

  it.each(["app", "widgets"])("%s matches its golden .schema.gen byte for byte", (service) => {
    const doc = pkg.documents.find((d) => d.service === service)!;
    const golden = join(fixtures, "expected", `${service}.schema.gen`);
    const text = schemaGenText(doc.php!);
    if (process.env.UPDATE_GOLDEN) writeFileSync(golden, text);
    expect(text).toBe(readFileSync(golden, "utf8"));
    // The document the model reads is the same JSON, without the two comment lines.
    expect(JSON.parse(doc.doc.file.text)).toEqual(plainValue(doc.php!.value));
  });

  it.each(["app", "widgets"])(
    "%s: the JSON tree built while printing is the tree a parse of the text gives",
    (service) => {
      const doc = pkg.documents.find((d) => d.service === service)!.doc;
      const strip = (n: JsonNode | undefined): unknown =>
        n && {
          type: n.type,
          offset: n.offset,
          length: n.length,
          value: n.value,
          colonOffset: n.colonOffset,
          children: n.children?.map(strip),
        };
      expect(strip(doc.root)).toEqual(strip(parseTree(doc.file.text)));
      for (const child of doc.root!.children!) expect(child.parent).toBe(doc.root);
    },
  );

  it("keeps the member order of aps build: top level, property, relation, operation, parameter", () => {
    const widget = plainValue(pkg.documents[1]!.php!.value) as Record<string, any>;
    expect(Object.keys(widget)).toEqual([
      "apsVersion",
      "name",
      "id",
      "implements",
      "properties",
      "operations",
      "structures",
      "relations",
    ]);
    expect(Object.keys(widget.properties.tags)).toEqual(["type", "items", "minItems", "maxItems", "default", "title"]);
    expect(Object.keys(widget.relations.app)).toEqual(["type", "required", "collection"]);
    expect(Object.keys(widget.operations.resize)).toEqual(["verb", "path", "access", "response", "parameters"]);
    expect(Object.keys(widget.operations.resize.parameters.factor)).toEqual(["type", "required", "kind"]);
    // Inherited members come after the class's own, as PHP reflection lists them.
    expect(Object.keys(widget.properties).slice(-2)).toEqual(["label", "note"]);
    expect(Object.keys(widget.operations).at(-1)).toBe("ping");
    // Structures: referenced ones only, in class declaration order (unused_thing is left out).
    expect(Object.keys(widget.structures)).toEqual(["Dimension", "Slot"]);
  });

  it("points every finding of the checker at the PHP annotation", () => {
    const { diagnostics, model } = compile([full], { cwd: repoRoot });
    const own = diagnostics.filter((d) => d.file.startsWith(full));
    expect(
      own.every((d) => d.file.endsWith(".php")),
      show(own),
    ).toBe(true);
    // @return(T, ctype) is written as both "type" and "contentType", as aps build does. A JSON
    // ctype says nothing the type does not (APS098, a warning, on the @return line of the PHP).
    const at = (d: Diagnostic) => `${d.code} ${d.file.split("/").at(-1)}:${d.line}:${d.col}`;
    expect(own.filter((d) => d.severity === "error").map(at)).toEqual([]);
    expect(own.filter((d) => d.code === "APS098").map(at)).toEqual([
      "APS098 widgets.php:71:8",
      "APS098 widgets.php:81:8",
    ]);
    expect(model.types.has("http://fixtures.example/phpwidgets/widget/1.0")).toBe(true);
    const widget = model.types.get("http://fixtures.example/phpwidgets/widget/1.0")!;
    expect(widget.decl.file).toBe(`${full}/scripts/widgets.php`);
    // @return(string, text/plain) (base.php's ping) is a plain-text reply, as in the built Mozy
    // 2.0-1.8 package: not the APS089 error of a JSON type beside another format, but the text
    // content type alone, while the declaration keeps both members as aps build writes them.
    const ping = widget.operations.get("ping")!;
    expect(ping.response).toMatchObject({ contentType: "text/plain" });
    expect(ping.response?.type).toBeUndefined();
    const connector = emitAll(model).find(
      (f) => f.path.startsWith("connector/") && f.path.endsWith("/index.gen.ts"),
    )!.content;
    // No parameters: the handler takes none.
    expect(connector).toContain("ping(ctx: ApsCallContext): MaybePromise<RawReply>;");
  });

  const outDir = mkdtempSync(join(tmpdir(), "aps-gen-php-"));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it("reads an .app.zip of the package like the folder", () => {
    const zip = join(outDir, "phpwidgets.app.zip");
    writeFileSync(zip, zipSync(filesOf(join(fixtures, "full"), "phpwidgets/")));
    const fromZip = loadInputs([zip], { cwd: repoRoot, includeCore: false });
    expect(show(fromZip.diagnostics)).toBe("");
    expect(fromZip.packages[0]!.documents.map((d) => plainValue(d.php!.value))).toEqual(
      pkg.documents.map((d) => plainValue(d.php!.value)),
    );
  });

  it("reads the JSON file instead once aps build has written the <schema path> file", () => {
    const built = join(outDir, "built");
    for (const [name, bytes] of Object.entries(filesOf(join(fixtures, "full")))) {
      const target = join(built, name);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, bytes);
    }
    mkdirSync(join(built, "schemas"), { recursive: true });
    writeFileSync(
      join(built, "schemas/widgets.schema.gen"),
      readFileSync(join(fixtures, "expected/widgets.schema.gen")),
    );
    const result = loadInputs([built], { cwd: repoRoot, includeCore: false });
    const widgets = result.packages[0]!.documents.find((d) => d.service === "widgets")!;
    expect(widgets.php).toBeUndefined();
    expect(widgets.doc.file.path.endsWith("schemas/widgets.schema.gen")).toBe(true);
  });
});

describe("PHP-annotated packages: findings point at the annotation", () => {
  const diag = rel(join(fixtures, "diagnostics"));
  const { diagnostics } = compile([diag], { cwd: repoRoot });
  const at = (code: string) =>
    diagnostics.filter((d) => d.code === code).map((d) => `${d.file.slice(diag.length + 1)}:${d.line}:${d.col}`);

  it("a tag aps-gen does not know is a warning naming it", () => {
    expect(at("APS013")).toEqual(["scripts/app.php:10:8"]);
    expect(diagnostics.find((d) => d.code === "APS013")!.message).toContain("@Description");
  });

  it("annotations aps build drops are dropped here too, each with a warning", () => {
    expect(at("APS014")).toEqual([
      "scripts/app.php:11:8", // @title("Host")/home/notes
      "scripts/app.php:12:8", // @default
      "scripts/app.php:17:8", // @title without @type
      "scripts/app.php:23:8", // @access on a link
      "scripts/app.php:30:8", // @param with no PHP parameter
      "scripts/app.php:31:8", // @param()
      "scripts/app.php:32:8", // @return(...) // comment
    ]);
  });

  it("a service whose type loads in no way is an error, never a silent skip", () => {
    expect(at("APS011")).toEqual(["APP-META.xml:11:9", "APP-META.xml:13:5", "scripts/plain.php:1:1"]);
    const messages = diagnostics.filter((d) => d.code === "APS011").map((d) => d.message);
    expect(messages[0]).toContain('"scripts/gone.php"');
    expect(messages[1]).toContain("names neither");
    expect(messages[2]).toContain("no class with a usable @type");
  });

  it("the checker's own rules report at the PHP line of the annotation", () => {
    expect(at("APS081")).toEqual(["scripts/app.php:38:8"]);
  });
});

const corpusPackages = corpusAvailable
  ? readdirSync(corpusRoot, { recursive: true, encoding: "utf8" })
      .filter((p) => p.endsWith("APP-META.xml"))
      .map((p) => dirname(join(corpusRoot, p)))
      // The packages with a <service> that names no <schema>: its type lives in PHP only.
      .filter((dir) =>
        loadInputs([dir], { includeCore: false }).packages[0]?.meta?.services.some((s) => s.schemaPath === undefined),
      )
      .sort()
  : [];

describe.skipIf(!corpusAvailable)(`corpus packages whose types live in PHP${corpusSkipReason}`, () => {
  it("are the 11 repositories the issue counts (12 APP-META.xml: timmywong2726 has two)", () => {
    expect(corpusPackages).toHaveLength(12);
    expect(new Set(corpusPackages.map((d) => relative(corpusRoot, d).split("/")[0])).size).toBe(11);
  });

  it.each(corpusPackages.map(rel))("%s: each service without its PHP is an error naming the missing script", (dir) => {
    const { diagnostics } = compile([dir], { cwd: repoRoot });
    const missing = diagnostics.filter((d) => d.code === "APS011");
    expect(missing.length).toBeGreaterThan(0);
    for (const d of missing) {
      expect(d.file).toMatch(/APP-META\.xml$/);
      expect(d.message).toMatch(/PHP code "[^"]+\.php" is not in|names neither/);
    }
  });
});

describe("PHP-annotated packages: each file is parsed once per load", () => {
  it("a file that every service includes is parsed once, not once per service", () => {
    const dir = mkdtempSync(join(tmpdir(), "aps-gen-php-shared-"));
    try {
      const services = ["a", "b", "c"];
      mkdirSync(join(dir, "scripts"));
      writeFileSync(
        join(dir, "APP-META.xml"),
        `<?xml version="1.0"?>\n<application version="2.0" xmlns="http://aps-standard.org/ns/2">\n<id>http://fixtures.example/shared</id>\n${services.map((s) => `<service id="${s}"><code engine="php" path="scripts/${s}.php"/></service>`).join("\n")}\n</application>\n`,
      );
      writeFileSync(
        join(dir, "scripts/shared.php"),
        "<?php\nclass Pair\n{\n    /**\n     * @type(string)\n     */\n    public $key;\n}\n",
      );
      for (const [i, s] of services.entries()) {
        const implementsId = i === 0 ? "application" : "resource";
        writeFileSync(
          join(dir, `scripts/${s}.php`),
          `<?php\nrequire_once "shared.php";\n/**\n * @type("http://fixtures.example/shared/${s}/1.0")\n * @implements("http://aps-standard.org/types/core/${implementsId}/1.0")\n */\nclass ${s} extends \\APS\\ResourceBase\n{\n    /**\n     * @type(Pair)\n     */\n    public $pair;\n}\n`,
        );
      }
      const parsed: string[] = [];
      const original = Engine.prototype.parseCode;
      const spy = vi.spyOn(Engine.prototype, "parseCode").mockImplementation(function (
        this: Engine,
        code: string,
        filename: string,
      ) {
        parsed.push(filename.split("/").at(-1)!);
        return original.call(this, code, filename);
      });
      try {
        const loaded = loadInputs([dir], { includeCore: false });
        expect(show(loaded.diagnostics)).toBe("");
        expect(
          loaded.packages[0]!.documents.map((d) =>
            Object.keys((plainValue(d.php!.value) as { structures: object }).structures),
          ),
        ).toEqual([["Pair"], ["Pair"], ["Pair"]]);
      } finally {
        spy.mockRestore();
      }
      expect(parsed.sort()).toEqual(["a.php", "b.php", "c.php", "shared.php"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
