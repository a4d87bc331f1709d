/**
 * docs/cli.md's reference is rendered from the yargs definitions (scripts/cli-reference.ts): this
 * fails when the page and the definitions part, and says how to bring the page up to date.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { END_MARK, REGENERATE, renderCliReference, START_MARK, withReference } from "../../scripts/cli-reference.ts";
import { repoRoot } from "../helpers/paths.ts";

describe("docs/cli.md", () => {
  const reference = renderCliReference();

  it("renders every command with its arguments, options and defaults from the definitions", () => {
    for (const command of [
      "check",
      "build",
      "validate",
      "serve",
      "migrate",
      "join",
      "token",
      "init",
      "declarations",
      "rules",
      "completion",
    ]) {
      expect(reference).toContain(`### aps-gen ${command}\n`);
    }
    expect(reference).toContain("aps-gen validate <file> [options]");
    expect(reference).toMatch(/\| `--port` \| number \| `8443` \| `APS_GEN_PORT` \| Port to listen on/);
    expect(reference).toMatch(/\| `--migrate` \/ `--no-migrate` \| boolean \| `true` \|/);
    expect(reference).toMatch(/\| `--format` \| text \\\| json \\\| sarif \\\| github \| `"text"` \|/);
    expect(reference).toMatch(/\| `--config` \| string \| {2}\| — \|/);
  });

  it("is what scripts/cli-reference.ts renders", () => {
    const page = readFileSync(join(repoRoot, "docs/cli.md"), "utf8");
    const current = withReference(page, reference);
    expect(page, `docs/cli.md is not what the yargs definitions say; run: ${REGENERATE}`).toBe(current);
  });

  it("tells a page that differs from the definitions apart", () => {
    const page = readFileSync(join(repoRoot, "docs/cli.md"), "utf8");
    expect(withReference(page.replace("| `8443` |", "| `9443` |"), reference)).toBe(page);
    expect(page.replace("| `8443` |", "| `9443` |")).not.toBe(page);
  });

  it("refuses a page without the marks of its generated part", () => {
    expect(() => withReference("# CLI\n", reference)).toThrow(START_MARK);
    expect(() => withReference(`${END_MARK}\n${START_MARK}\n`, reference)).toThrow(/no/);
  });
});
