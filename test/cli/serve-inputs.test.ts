import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compile } from "../../generator/pipeline.ts";
import { runCli, withoutDatabaseUrl } from "../helpers/cli-run.ts";
import { repoRoot } from "../helpers/paths.ts";

/**
 * Issue 28 item 9: `serve` without --types serves ./types or, where there is none, the core types
 * alone, saying where it looked; it never searches the working folder. And a folder that holds
 * copies of the core types beside its own declarations loads: an identical declaration of an id
 * is the same type.
 *
 * Serve is run against a database that cannot be reached: it compiles, says what it will serve
 * ("starting the controller: N types"), then stops with one line and exit 2, in well under a
 * second. test/e2e/serve-cli.test.ts starts one for real in an empty folder.
 */
const root = mkdtempSync(join(tmpdir(), "aps-serve-inputs-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
withoutDatabaseUrl();

const NO_DATABASE = ["--database-url", "postgres://nobody@127.0.0.1:1/none", "--port", "0"];
const coreTypes = compile([], { includeCore: true }).model.types.size;
const folder = (name: string) => {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  return dir;
};
const serveIn = (cwd: string, ...argv: string[]) =>
  runCli(["serve", ...NO_DATABASE, "--data", join(cwd, ".aps-data"), ...argv], cwd);
const WIDGET = {
  apsVersion: "2.0",
  name: "Widget",
  id: "http://widgets.example/types/widget/1.0",
  implements: ["http://aps-standard.org/types/core/resource/1.0"],
  properties: { size: { type: "integer" } },
};

describe("serve: what it reads when --types is not given", () => {
  it("in an empty folder: the core types only, said in one line", async () => {
    const empty = folder("empty");
    const r = await serveIn(empty);
    expect(r.err[0]).toBe(
      `no --types given and no ./types in ${empty}: serving the core types only; name declarations with --types <folder or .app.zip>`,
    );
    expect(r.err[1]).toBe(`starting the controller: ${coreTypes} types · PostgreSQL`);
    // Then the unreachable database: one line, exit 2, no stack.
    expect(r.code).toBe(2);
    expect(r.err.at(-1)).toMatch(/^aps-gen serve: cannot reach the database/);
    expect(r.err.join("\n")).not.toMatch(/\n\s+at /);
  }, 30_000);

  it("in a folder of other projects' declarations (test fixtures in subfolders): none of them is read", async () => {
    const other = folder("other-project");
    // Another project's negative fixtures: hundreds of errors if anything searched them.
    cpSync(join(repoRoot, "test/fixtures/check"), join(other, "test/fixtures/check"), { recursive: true });
    writeFileSync(join(other, "stray.schema"), "{ not json");
    writeFileSync(join(other, "package.json"), JSON.stringify({ name: "someone-else" }));
    const r = await serveIn(other);
    expect(r.err[0]).toMatch(/^no --types given and no \.\/types in .*other-project: serving the core types only;/);
    expect(r.err[1]).toBe(`starting the controller: ${coreTypes} types · PostgreSQL`);
    expect(r.err.join("\n")).not.toMatch(/APS\d{3}/);
    expect(r.code).toBe(2);
  }, 30_000);

  it("with --no-core and nothing to read: says it serves no types", async () => {
    const r = await serveIn(folder("bare"), "--no-core");
    expect(r.err[0]).toMatch(/: serving no types \(--no-core\);/);
    expect(r.err.join("\n")).not.toMatch(/\n\s+at /);
  }, 30_000);

  it("./types when it exists, said in one line; --types and the config's types say nothing", async () => {
    const project = folder("project");
    mkdirSync(join(project, "types"));
    writeFileSync(join(project, "types/widget.schema"), JSON.stringify(WIDGET));
    mkdirSync(join(project, "fixtures"));
    writeFileSync(join(project, "fixtures/broken.schema"), "{ not json");
    const r = await serveIn(project);
    expect(r.err[0]).toBe("no --types given: serving ./types");
    expect(r.err[1]).toBe(`starting the controller: ${coreTypes + 1} types · PostgreSQL`);
    const named = await serveIn(project, "--types", "types");
    expect(named.err[0]).toBe(`starting the controller: ${coreTypes + 1} types · PostgreSQL`);
    writeFileSync(join(project, "aps-gen.config.json"), JSON.stringify({ types: ["types"] }));
    const configured = await serveIn(project);
    expect(configured.err[0]).toBe(`starting the controller: ${coreTypes + 1} types · PostgreSQL`);
  }, 30_000);
});

describe("a folder holding copies of the core types", () => {
  const withCopies = folder("with-core-copies");
  cpSync(join(repoRoot, "types/core"), join(withCopies, "core"), { recursive: true });
  mkdirSync(join(withCopies, "widgets"));
  writeFileSync(join(withCopies, "widgets/widget.schema"), JSON.stringify(WIDGET, null, 2));

  it("loads: an identical declaration of an id is the same type (check and serve)", async () => {
    const checked = await runCli(["check", "--types", withCopies, "--format", "json"], root);
    expect(checked.code, checked.out.join("\n")).toBe(0);
    expect(
      (JSON.parse(checked.out.join("\n")) as { diagnostics: { code: string }[] }).diagnostics.map((d) => d.code),
    ).not.toContain("APS009");
    const served = await serveIn(folder("anywhere"), "--types", withCopies);
    expect(served.err[0]).toBe(`starting the controller: ${coreTypes + 1} types · PostgreSQL`);
  }, 30_000);

  it("a copy that differs is still APS009, with the way out (--no-core) in the same line", async () => {
    const edited = folder("edited-core-copy");
    cpSync(join(repoRoot, "types/core"), join(edited, "core"), { recursive: true });
    const file = join(edited, "core/account.schema");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace('"name": "Account"', '"name": "Account", "displayName": "our own"'),
    );
    const r = await runCli(["check", "--types", edited], root);
    expect(r.code).toBe(1);
    const lines = r.out.filter((l) => l.includes("APS009"));
    expect(lines).toEqual([
      expect.stringMatching(
        /account\.schema:\d+:\d+ - error APS009: type id "http:\/\/aps-standard\.org\/types\/core\/account\/1\.0" is already declared in .*, differently; .*--no-core\.$/,
      ),
    ]);
    const own = await runCli(["check", "--types", edited, "--no-core"], root);
    expect(own.code, own.out.join("\n")).toBe(0);
  }, 30_000);
});
