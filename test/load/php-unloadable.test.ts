import { describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../generator/diagnostics/diagnostic.ts";
import { main } from "../../cli/main.ts";
import { phpDeclarations } from "../../generator/load/php/php-declarations.ts";
import { repoRoot } from "../helpers/paths.ts";

/**
 * Scripts that declare no type at all, in the two shapes found in built public packages: an
 * empty file (aps build wrote a declaration with nothing in it for each of the ten services of
 * one release), and `<?php` glued to the next word, which is no opening tag, so PHP prints the
 * file as text (aps build wrote that text as the declaration). The error says which.
 */
const PKG = "test/fixtures/php/unloadable";

describe("PHP scripts that declare no type", () => {
  it("an empty script and one with no opening tag are APS011 errors that say why", () => {
    const { files, diagnostics } = phpDeclarations(PKG, repoRoot);
    expect(files.map((f) => f.service)).toEqual(["notes"]);
    const lines = diagnostics.map(formatDiagnostic);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/scripts\/blank\.php:1:1 - error APS011: service "blank": scripts\/blank\.php is empty/);
    expect(lines[1]).toMatch(
      /scripts\/glued\.php:1:1 - error APS011: service "glued": scripts\/glued\.php has no PHP code: .*starts "<\?php\/\/ the op/,
    );
  });

  it("check says 1 of 3 services loaded and prints no ✓", async () => {
    const out: string[] = [];
    const code = await main(["check", "--types", PKG], { out: (l) => out.push(l), err: (l) => out.push(l) }, repoRoot);
    expect(code).toBe(1);
    expect(out).toContain("  unloadable: 1 of 3 services loaded");
    expect(out.at(-1)).toMatch(/^✗ /);
  });
});
