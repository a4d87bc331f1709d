import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../cli/main.ts";
import { repoRoot } from "../helpers/paths.ts";

/**
 * Issue 18: aps-gen.config.{json,ts} or package.json "aps-gen" gives the options of every
 * command, per-command sections and rule severities; the command line wins over it.
 */
const root = mkdtempSync(join(tmpdir(), "aps-config-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
/** A project folder with a declaration under pkg/ whose operation has no response (warning APS092). */
function project(files: Record<string, string>): string {
  const dir = join(root, `p${n++}`);
  mkdirSync(dir);
  cpSync(join(repoRoot, "test/fixtures/check/response-missing"), join(dir, "pkg"), { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

async function run(cwd: string, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, cwd);
  return { code, out, err, text: [...out, ...err].join("\n") };
}

describe("config file", () => {
  it("aps-gen.config.json gives --types, silences a warning rule by name, and sets build's out", async () => {
    const dir = project({
      "aps-gen.config.json": JSON.stringify({
        types: ["pkg"],
        rules: { "response-missing": "off" },
        build: { out: "src/gen" },
      }),
    });
    const plain = await run(dir, "check", "--types", "pkg", "--config", join(dir, "missing.json"));
    expect(plain.code).toBe(2);
    expect(plain.err).toEqual([expect.stringMatching(/config file .*missing\.json does not exist/)]);
    const checked = await run(dir, "check");
    expect(checked.code, checked.text).toBe(0);
    expect(checked.text).not.toContain("APS092");
    expect(checked.out.at(-1)).toMatch(/^✓ 19 types checked · 0 errors · 0 warnings/);
    const built = await run(dir, "build");
    expect(built.code, built.text).toBe(0);
    expect(existsSync(join(dir, "src/gen/types"))).toBe(true);
    // The command line wins over the file.
    const other = await run(dir, "build", "--out", "elsewhere");
    expect(other.code).toBe(0);
    expect(existsSync(join(dir, "elsewhere/types"))).toBe(true);
  });

  it("without a config the same package warns: the setting is what silenced it", async () => {
    const dir = project({});
    const r = await run(dir, "check", "--types", "pkg");
    expect(r.text).toMatch(/warning APS092/);
  });

  it('reads package.json\'s "aps-gen" key, and a warning made an error fails check', async () => {
    const dir = project({
      "package.json": JSON.stringify({ name: "x", "aps-gen": { types: ["pkg"], rules: { APS092: "error" } } }),
    });
    const r = await run(dir, "check");
    expect(r.code).toBe(1);
    expect(r.text).toMatch(/ - error APS092: /);
  });

  it("reads aps-gen.config.ts (TypeScript, loaded with jiti) from a folder above the working one", async () => {
    const dir = project({
      "aps-gen.config.ts":
        'const config: { types: string[]; rules: Record<string, "off"> } = { types: ["pkg"], rules: { APS092: "off" } };\nexport default config;\n',
    });
    mkdirSync(join(dir, "sub"));
    const r = await run(join(dir, "sub"), "check");
    expect(r.code, r.text).toBe(0);
    expect(r.text).not.toContain("APS092");
  });

  it("refuses in one line, exit 2: an error rule turned off, a rule that does not exist, an unknown option, bad JSON", async () => {
    const cases: [object | string, RegExp][] = [
      [{ rules: { APS031: "off" } }, /APS031 \(misspelt-attribute\) is an error rule, so it cannot be set to "off"/],
      [{ rules: { "no-such-rule": "off" } }, /rules: "no-such-rule" is no rule/],
      [{ rules: { APS092: "loud" } }, /APS092 must be "off", "warning" or "error", not "loud"/],
      [{ types: ["pkg"], bogus: 1 }, /"bogus" is no option of this command/],
      ["{ not json", /cannot read the config/],
    ];
    for (const [config, message] of cases) {
      const dir = project({ "aps-gen.config.json": typeof config === "string" ? config : JSON.stringify(config) });
      const r = await run(dir, "check");
      expect(r.code, r.text).toBe(2);
      expect(r.err).toEqual([expect.stringMatching(message)]);
    }
  });
});

describe("environment variables", () => {
  /** Runs with `vars` set in process.env (main reads it), then puts the environment back. */
  async function withEnv(vars: Record<string, string>, work: () => Promise<Awaited<ReturnType<typeof run>>>) {
    const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
    Object.assign(process.env, vars);
    try {
      return await work();
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  }

  it("APS_GEN_<OPTION> gives an option; other APS_GEN_ variables are left alone", async () => {
    const dir = project({});
    const r = await withEnv({ APS_GEN_TYPES: "pkg", APS_GEN_FORMAT: "json", APS_GEN_SOMETHING_ELSE: "1" }, () =>
      run(dir, "check"),
    );
    expect(r.code, r.text).toBe(0);
    expect(JSON.parse(r.out.join("\n")).diagnostics.map((d: { code: string }) => d.code)).toContain("APS092");
  });

  it("the command line wins over the environment, the environment over the config file", async () => {
    const dir = project({ "aps-gen.config.json": JSON.stringify({ types: ["pkg"], build: { out: "from-config" } }) });
    const fromEnv = await withEnv({ APS_GEN_OUT: "from-env" }, () => run(dir, "build"));
    expect(fromEnv.code, fromEnv.text).toBe(0);
    expect(existsSync(join(dir, "from-env"))).toBe(true);
    expect(existsSync(join(dir, "from-config"))).toBe(false);
    const fromLine = await withEnv({ APS_GEN_OUT: "from-env", APS_GEN_WARN_AS_ERROR: "false" }, () =>
      run(dir, "build", "--out", "from-line", "--warn-as-error"),
    );
    expect(fromLine.code, fromLine.text).toBe(1);
    expect(existsSync(join(dir, "from-line"))).toBe(false);
  });
});
