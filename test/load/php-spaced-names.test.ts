import { Engine } from "php-parser";
import { describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../generator/diagnostics/diagnostic.ts";
import { main } from "../../cli/main.ts";
import { phpDeclarations } from "../../generator/load/php/php-declarations.ts";
import { closeSpacedNames } from "../../generator/load/php/spaced-names.ts";
import { repoRoot } from "../helpers/paths.ts";

const engine = new Engine({ parser: { php8: true }, lexer: {} });

describe("namespaced names with blanks in them (PHP 5 and 7)", () => {
  it("closes the name up and keeps the text's length, so positions after it stay", () => {
    const text = "<?php class c extends \\ APS \\ ResourceBase { }";
    const closed = closeSpacedNames(text, engine);
    expect(closed).toBe("<?php class c extends \\APS\\ResourceBase    { }");
    expect(closed).toHaveLength(text.length);
  });

  it("leaves names without blanks, blanks with line breaks and non-names alone", () => {
    for (const text of [
      "<?php $a = \\APS\\X::y(); class c extends d { }",
      "<?php class c extends \\\n APS\\B { }",
      "<?php $a = 1 \\ 2;",
    ]) {
      expect(closeSpacedNames(text, engine)).toBe(text);
    }
  });

  it("a package that writes `extends \\ APS \\ ResourceBase` loads, its diagnostics at the PHP's own positions", async () => {
    const { files, diagnostics } = phpDeclarations("test/fixtures/php/spaced-names", repoRoot);
    expect(files.map((f) => f.service)).toEqual(["sites"]);
    const declaration = JSON.parse(files[0]!.text.split("\n").slice(2).join("\n")) as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(declaration.properties)).toEqual(["name", "size"]);
    expect(diagnostics.map(formatDiagnostic)).toEqual([expect.stringMatching(/sites\.php:8:48 - warning APS014/)]);
    // Check's findings point into the file as written.
    const lines: string[] = [];
    await main(
      ["check", "--types", "test/fixtures/php/spaced-names"],
      { out: (l) => lines.push(l), err: (l) => lines.push(l) },
      repoRoot,
    );
    expect(
      lines.some((l) => /scripts\/sites\.php:19:\d+ - \w+ APS\d+: .*parsecs/.test(l)),
      lines.join("\n"),
    ).toBe(true);
    // On the line of the spaced name itself, after it: the column of the text as written.
    const line8 = "class sites extends \\ APS \\ ResourceBase { /** @type(integer) @unit(furlongs) */ public $quota;";
    // (a tag after another on one line is dropped, as aps build does: APS014 at the first tag)
    expect(
      lines.find((l) => l.includes("furlongs")),
      lines.join("\n"),
    ).toMatch(new RegExp(`scripts/sites\\.php:8:${line8.indexOf("@type") + 1} - warning APS014`));
  });
});
