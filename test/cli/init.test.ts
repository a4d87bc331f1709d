import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../cli/main.ts";
import { packedInstall } from "../helpers/packed-package.ts";
import { repoRoot } from "../helpers/paths.ts";
import { cachingHost } from "../helpers/typecheck.ts";

const root = mkdtempSync(join(tmpdir(), "aps-init-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const project = join(root, "cloudmail-connector");

async function init(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(["init", ...argv], { out: (l) => out.push(l), err: (l) => err.push(l) }, repoRoot);
  return { code, out, err };
}

/** Type-checks the project as its own tsconfig would, with aps-gen resolved to this checkout. */
function typecheckProject(): string[] {
  const files = ["src/main.ts", "src/check.gen.ts", "test/connector.test.ts"].map((f) => join(project, f));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    types: ["node"],
    typeRoots: [join(repoRoot, "node_modules/@types")],
  };
  const program = ts.createProgram(files, options, cachingHost(options));
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`);
}

// Packing builds dist/ and installs the tarball once per run; the first test file to ask pays.
beforeAll(() => void packedInstall(), 300_000);

describe("aps-gen init", () => {
  it("scaffolds a connector project that type-checks, starts and passes its test", async () => {
    const r = await init(project, "--package", "types/examples/cloudmail");
    expect(r.code, r.err.join("\n")).toBe(0);
    for (const f of [
      "package.json",
      "tsconfig.json",
      "src/main.ts",
      "src/check.gen.ts",
      "src/handlers/mailboxes.ts",
      "src/handlers/tenants.ts",
      "test/connector.test.ts",
      "generated/connector/cloudmail/index.gen.ts",
    ]) {
      expect(existsSync(join(project, f)), f).toBe(true);
    }
    expect(JSON.parse(readFileSync(join(project, "package.json"), "utf8")).dependencies["aps-gen"]).toMatch(
      /^\^\d+\.\d+\.\d+$/,
    );
    // What `npm install` would put there: this checkout packed and installed (no network in tests).
    mkdirSync(join(project, "node_modules"));
    symlinkSync(join(packedInstall(), "node_modules/aps-gen"), join(project, "node_modules/aps-gen"));
    symlinkSync(join(repoRoot, "node_modules/tsx"), join(project, "node_modules/tsx"));
    mkdirSync(join(project, "node_modules/@types"));
    symlinkSync(join(repoRoot, "node_modules/@types/node"), join(project, "node_modules/@types/node"));
    expect(typecheckProject()).toEqual([]);

    const started = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
        cwd: project,
        env: { ...process.env, PORT: "0" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += String(d);
        if (out.includes("connector on https://")) {
          child.kill("SIGTERM");
          resolve(out);
        }
      });
      child.stderr.on("data", (d: Buffer) => (out += String(d)));
      child.on("exit", (code) =>
        out.includes("connector on") ? undefined : reject(new Error(`exited ${code}: ${out}`)),
      );
    });
    expect(started).toMatch(/connector on https:\/\/127\.0\.0\.1:\d+; endpoint CA certificate: /);

    const tested = await new Promise<number | null>((resolve) =>
      spawn(process.execPath, ["--import", "tsx", "--test", "test/connector.test.ts"], {
        cwd: project,
        stdio: "ignore",
      }).on("exit", resolve),
    );
    expect(tested).toBe(0);

    // The project's own `npm run build`, run from its folder, finds generated/ as init left it
    // from the repository's folder: banners name the package, not a path from where one stood.
    const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as { scripts: { build: string } };
    const buildArgs = pkg.scripts.build.split(" ").slice(1);
    const rebuilt: string[] = [];
    const code = await main(
      [...buildArgs, "--check"],
      { out: (l) => rebuilt.push(l), err: (l) => rebuilt.push(l) },
      project,
    );
    expect(code, rebuilt.join("\n")).toBe(0);
    expect(rebuilt.at(-1)).toMatch(/^✓ generated\/ is up to date/);
  }, 60_000);

  it("never overwrites the vendor's stubs, and tsc fails when a stub stops matching its interface", async () => {
    const stub = join(project, "src/handlers/mailboxes.ts");
    const broken = readFileSync(stub, "utf8").replace(/ {2}enable\(_ctx\) \{\},\n/, "");
    writeFileSync(stub, broken);
    const again = await init(project, "--package", "types/examples/cloudmail");
    expect(again.code).toBe(0);
    expect(again.out).toContain("  kept   src/handlers/mailboxes.ts (yours; not overwritten)");
    expect(readFileSync(stub, "utf8")).toBe(broken);
    const errors = typecheckProject();
    expect(errors.join("\n")).toMatch(/mailboxes\.ts: .*enable/);
  });

  it("refuses a package without APP-META.xml", async () => {
    const r = await init(join(root, "x"), "--package", "test/fixtures/controller/notes");
    expect(r.code).toBe(2);
    expect(r.err.join("\n")).toMatch(/not an application package/);
  });
});
