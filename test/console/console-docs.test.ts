/**
 * docs/console.md shows each page's screenshot once, and each one exists: the screenshots are
 * written by the browser test run (test/e2e/console.test.ts with CONSOLE_SCREENSHOTS=1), and the
 * page once carried two extra copies of the gallery pasted over its own instructions.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/paths.ts";

const page = readFileSync(join(repoRoot, "docs/console.md"), "utf8");
const taken = [
  ...readFileSync(join(repoRoot, "test/e2e/console.test.ts"), "utf8").matchAll(/screenshot\(page, "([a-z-]+)"\)/g),
].map((m) => m[1]!);

describe("docs/console.md", () => {
  it("shows every screenshot the browser test takes, once each, and no other", () => {
    const shown = [...page.matchAll(/!\[[^\]]*\]\(console\/([a-z-]+)\.png\)/g)].map((m) => m[1]!);
    expect(taken.length).toBeGreaterThan(5);
    expect([...shown].sort()).toEqual([...new Set(taken)].sort());
    for (const name of shown) expect(existsSync(join(repoRoot, "docs/console", `${name}.png`)), name).toBe(true);
    const files = readdirSync(join(repoRoot, "docs/console")).filter((f) => f.endsWith(".png"));
    expect(files.map((f) => f.replace(/\.png$/, "")).sort()).toEqual([...shown].sort());
  });

  it("gives the commands that run the browser tests and take the screenshots", () => {
    expect(page).toContain("CONSOLE_SCREENSHOTS=1 npx vitest run --project suites test/e2e/console.test.ts");
    expect(page).toContain("npx vitest run --project timing test/e2e/console-load.test.ts");
  });
});
