import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../cli/main.ts";
import { repoRoot } from "../helpers/paths.ts";

const dir = mkdtempSync(join(tmpdir(), "aps-gen-validate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const WIDGETS = join(repoRoot, "test/fixtures/validators/widgets");
const WIDGET = "http://widgets.example/types/widget/1.0";

async function run(argv: string[], stdin = "") {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    ["validate", "--types", WIDGETS, ...argv],
    { out: (l) => out.push(l), err: (l) => err.push(l) },
    dir,
    async () => stdin,
  );
  return { code, out, err };
}

function file(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return name;
}

describe("aps-gen validate", () => {
  it("exits 0 for a valid body and says so", async () => {
    const r = await run([
      "--type",
      WIDGET,
      file("ok.json", '{"name": "abc", "size": "m", "count": 9223372036854775807}'),
    ]);
    expect(r).toEqual({ code: 0, out: ["✓ ok.json as create of Widget by owner: valid"], err: [] });
  });

  it("exits 1 and prints one error a line, path first", async () => {
    const r = await run([
      "--type",
      "widget",
      file("bad.json", '{"name": "abc", "size": "m", "count": 5000000000000000000000, "serial": "s"}'),
    ]);
    expect(r.code).toBe(1);
    expect(r.out).toEqual([
      "/count: 5000000000000000000000 is outside the signed 64-bit range (-9223372036854775808 to 9223372036854775807)",
      // The message may end with where the rule is stated; what it says is what counts here.
      expect.stringMatching(/^\/serial: is read-only: only the application sets it\b/),
      "✗ bad.json as create of Widget by owner: 2 errors",
    ]);
  });

  it("honours --mode and --actor", async () => {
    const body = file("update.json", '{"region": "eu", "serial": "s"}');
    expect((await run(["--type", WIDGET, "--mode", "update", body])).out.slice(0, 2)).toEqual([
      "/region: is final: it can be set only when the resource is created, not changed by configure",
      expect.stringMatching(/^\/serial: is read-only: only the application sets it\b/),
    ]);
    expect((await run(["--type", WIDGET, "--mode", "update", "--actor", "application", body])).code).toBe(0);
  });

  it("reads standard input for -, and prints JSON with --format json", async () => {
    const r = await run(["--type", WIDGET, "--format", "json", "-"], '{"name": 1, "size": "m"}');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out.join("\n"))).toMatchObject({
      valid: false,
      type: WIDGET,
      mode: "create",
      actor: "owner",
      errors: [{ path: "/name", code: "type" }],
    });
  });

  it.each([
    [["--type", WIDGET, "missing.json"], /cannot read missing.json: ENOENT/],
    [["--type", WIDGET, "-"], /standard input is not JSON/],
    [["--type", "nope", "-"], /no type "nope" in the inputs; resource types: .*widget/],
    [
      ["--type", WIDGET, "--mode", "delete", "-"],
      /^aps-gen: --mode "delete" is not one of create, update; see aps-gen <command> --help$/,
    ],
    [["--type", WIDGET, "--actor", "root", "-"], /^aps-gen: --actor "root" is not one of /],
  ])("exits 2 for unusable input: %j", async (argv, message) => {
    const r = await run(argv as string[], "{");
    expect(r.code).toBe(2);
    expect(r.err.join("\n")).toMatch(message);
    expect(r.out).toEqual([]);
  });

  it("exits 2 when the declarations themselves have errors", async () => {
    const decl = file(
      "broken.schema",
      '{"apsVersion": "2.0", "name": "b", "id": "http://b.example/b/1.0", "properties": {"x": {}}}',
    );
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(
      ["validate", "--types", decl, "--type", "b", "-"],
      { out: (l) => out.push(l), err: (l) => err.push(l) },
      dir,
      async () => "{}",
    );
    expect(code).toBe(2);
    expect(err.join("\n")).toMatch(/APS041[\s\S]*fix them first/);
  });

  it("works as a real process through the bin, body on standard input", () => {
    const bin = join(repoRoot, "bin/aps-gen.js");
    const ok = spawnSync(process.execPath, [bin, "validate", "--types", WIDGETS, "--type", "widget", "-"], {
      input: '{"name": "abc", "size": "m", "level": -9223372036854775808}',
      encoding: "utf8",
    });
    expect(ok.stdout.trim()).toBe("✓ standard input as create of Widget by owner: valid");
    expect(ok.status).toBe(0);
    const bad = spawnSync(process.execPath, [bin, "validate", "--types", WIDGETS, "--type", "widget", "-"], {
      input: '{"name": "abc", "size": "m", "level": -9223372036854775809}',
      encoding: "utf8",
    });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain("/level: -9223372036854775809 is outside the signed 64-bit range");
    expect(() =>
      execFileSync(
        process.execPath,
        [bin, "validate", "--types", WIDGETS, "--type", "widget", join(dir, "nothing.json")],
        { stdio: "pipe" },
      ),
    ).toThrow(/Command failed/);
  });
});
