import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../cli/main.ts";
import { packedInstall } from "../helpers/packed-package.ts";
import { repoRoot } from "../helpers/paths.ts";

const root = mkdtempSync(join(tmpdir(), "aps-init-php-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const project = join(root, "mailhost-connector");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Runs `npm start` in the scaffold until it says where it listens, then stops it. */
function startConnector(): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    // detached: npm runs node as a child; the group is signalled so neither outlives the test.
    const child = spawn(npm, ["start"], {
      cwd: project,
      env: { ...process.env, PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let out = "";
    const onData = (d: Buffer) => {
      out += String(d);
      if (out.includes("connector on https://")) {
        process.kill(-child.pid!, "SIGTERM");
        resolve(out);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (d: Buffer) => (out += String(d)));
    child.on("exit", (code) =>
      out.includes("connector on") ? undefined : reject(new Error(`exited ${code}: ${out}`)),
    );
  });
}

// Packing builds dist/ and installs the tarball once per run; the first test file to ask pays.
beforeAll(() => void packedInstall(), 300_000);

describe("aps-gen init on a PHP-annotated package", () => {
  // Slow (~20 s): a full init, then tsc and node --test and a start of the scaffold in child processes.
  it("(slow) scaffolds a connector whose stubs carry the PHP operations; npm test and npm start work", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(
      ["init", project, "--package", "test/fixtures/php/mailhost"],
      { out: (l) => out.push(l), err: (l) => err.push(l) },
      repoRoot,
    );
    expect(code, err.join("\n")).toBe(0);
    expect(out).toContain("  mailhost: 3 of 3 services loaded");

    // One stub per service, with the operations of its PHP class (methods with @verb only).
    const tenants = readFileSync(join(project, "src/handlers/tenants.ts"), "utf8");
    for (const op of ["quota", "setQuota", "onMailboxChanged"])
      expect(tenants).toContain(`  ${op}: () => notYet("${op}"),`);
    expect(tenants).not.toContain("provision: () =>");
    const mailboxes = readFileSync(join(project, "src/handlers/mailboxes.ts"), "utf8");
    expect(mailboxes).toContain('  resetPassword: () => notYet("resetPassword"),');
    const generated = readFileSync(join(project, "generated/connector/mailhost/index.gen.ts"), "utf8");
    expect(generated).toContain(
      "setQuota(ctx: ApsCallContext, params: TenantsSetQuotaParams): MaybePromise<TenantsSetQuotaReply>;",
    );
    // The operation's types are emitted once, in the types module: the reply is the @return structure.
    expect(readFileSync(join(project, "generated/types/mailhost/index.gen.ts"), "utf8")).toContain(
      "export type TenantsSetQuotaReply = Quota;",
    );

    // What `npm install` would put in node_modules: this checkout packed and installed, the rest linked (no network in tests).
    mkdirSync(join(project, "node_modules/@types"), { recursive: true });
    symlinkSync(join(packedInstall(), "node_modules/aps-gen"), join(project, "node_modules/aps-gen"));
    for (const dep of ["tsx", "typescript", "@types/node"])
      symlinkSync(join(repoRoot, "node_modules", dep), join(project, "node_modules", dep));
    mkdirSync(join(project, "node_modules/.bin"));
    symlinkSync(join(repoRoot, "node_modules/typescript/bin/tsc"), join(project, "node_modules/.bin/tsc"));

    const tested = spawnSync(npm, ["test"], { cwd: project, encoding: "utf8" });
    expect(tested.status, `${tested.stdout}\n${tested.stderr}`).toBe(0);
    expect(tested.stdout).toMatch(/# pass 1/);

    expect(await startConnector()).toMatch(/connector on https:\/\/127\.0\.0\.1:\d+; endpoint CA certificate: /);
  }, 120_000);
});

describe("aps-gen init on a PHP package whose services did not all load", () => {
  it("prints no ✓, says how many services loaded, and writes nothing", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const dir = join(root, "diagnostics-connector");
    const code = await main(
      ["init", dir, "--package", "test/fixtures/php/diagnostics"],
      { out: (l) => out.push(l), err: (l) => err.push(l) },
      repoRoot,
    );
    expect(code).toBe(1);
    expect([...out, ...err].some((l) => l.startsWith("✓"))).toBe(false);
    expect(err).toContain("  diagnostics: 1 of 4 services loaded");
    expect(err.at(-1)).toBe("aps-gen init: the declarations have errors (see above); fix them first.");
    expect(existsSync(dir)).toBe(false);
  });
});
