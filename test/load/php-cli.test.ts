import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../cli/main.ts";
import { repoRoot } from "../helpers/paths.ts";

const fixtures = join(repoRoot, "test/fixtures/php");
const rel = (p: string) => relative(repoRoot, p);

async function run(...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, repoRoot);
  return { code, out, err };
}

describe("aps-gen with PHP-annotated packages", () => {
  const outDir = mkdtempSync(join(tmpdir(), "aps-gen-php-cli-"));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it("check never prints ✓ when a service's type did not load, and says how many loaded", async () => {
    const { code, out } = await run("check", "--types", rel(join(fixtures, "diagnostics")));
    expect(code).toBe(1);
    expect(out.at(-1)).toMatch(/^✗ /);
    expect(out).toContain("  diagnostics: 1 of 4 services loaded");
  });

  it("check counts the services of a package read from PHP", async () => {
    const { out } = await run("check", "--types", rel(join(fixtures, "full")));
    expect(out).toContain("  full: 2 of 2 services loaded");
  });

  it("declarations --out writes what aps build writes as schemas/<service>.schema.gen", async () => {
    const { code, out } = await run("declarations", rel(join(fixtures, "full")), "--out", outDir);
    expect(code).toBe(0);
    expect(out).toHaveLength(2);
    for (const service of ["app", "widgets"]) {
      expect(readFileSync(join(outDir, `${service}.schema.gen`), "utf8")).toBe(
        `${readFileSync(join(fixtures, "expected", `${service}.schema.gen`), "utf8")}\n`,
      );
    }
  });

  it("declarations fails, naming the problem, when a service's type cannot be read", async () => {
    const { code, err } = await run("declarations", rel(join(fixtures, "diagnostics")));
    expect(code).toBe(1);
    expect(err.some((l) => l.includes("APS011") && l.includes("scripts/gone.php"))).toBe(true);
    expect(err.at(-1)).toMatch(/^✗ 1 PHP-declared service written/);
  });
});
