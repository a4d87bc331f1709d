import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/paths.ts";
import { until } from "../helpers/until.ts";

/**
 * Issue 18: `build --watch` builds, then builds again on every change; a bad declaration is
 * shown and the watch goes on; SIGTERM ends it with exit 0.
 */
const root = mkdtempSync(join(tmpdir(), "aps-watch-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("build --watch", () => {
  it("rebuilds on a change, survives a broken declaration, and stops on SIGTERM", async () => {
    const pkg = join(root, "pkg");
    cpSync(join(repoRoot, "test/fixtures/check/response-missing"), pkg, { recursive: true });
    const schema = join(pkg, "widget.schema");
    const good = readFileSync(schema, "utf8");
    const child = spawn(
      process.execPath,
      [join(repoRoot, "bin/aps-gen.js"), "build", "--watch", "--types", "pkg", "--out", "gen"],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((done) => child.on("close", done));
    try {
      await until("the first build", () => output.includes("watching"), 30_000);
      expect(output).toMatch(/✓ 19 types → gen\//);
      const typesFile = join(root, "gen/types");
      expect(existsSync(typesFile)).toBe(true);

      // A broken declaration: the errors are shown, nothing is written, the watch goes on.
      writeFileSync(schema, good.replace('"apsVersion": "2.0"', '"apsVersion": "2.0",,'));
      await until("the failed rebuild", () => output.includes("✗ build stopped"), 15_000);
      expect(output).toMatch(/error APS001/);

      // Fixed, with a new property: built again.
      const before = output.length;
      writeFileSync(
        schema,
        good.replace('"operations": {', '"properties": { "watched": { "type": "string" } },\n    "operations": {'),
      );
      await until("the fixed rebuild", () => output.slice(before).includes("✓ 19 types"), 15_000);
      const widget = readFileSync(join(root, "gen/types/pkg/index.gen.ts"), "utf8");
      expect(widget).toContain("watched");
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 90_000);
});
