import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, withoutDatabaseUrl } from "../helpers/cli-run.ts";

/** Issue 18: `aps-gen migrate` and `serve --no-migrate` (migrations as a deployment step of their own). */
const root = mkdtempSync(join(tmpdir(), "aps-migrate-cli-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
withoutDatabaseUrl();
const run = (...argv: string[]) => runCli(argv);

describe("aps-gen migrate", () => {
  it("serve --no-migrate refuses a fresh data folder; migrate applies every migration, then none", async () => {
    const data = join(root, "data");
    const refused = await run(
      "serve",
      "--types",
      "types/examples/cloudmail",
      "--port",
      "0",
      "--data",
      data,
      "--no-migrate",
    );
    expect(refused.code).toBe(2);
    expect(refused.err.at(-1)).toMatch(/^aps-gen serve: .*migration/);
    process.env.APS_GEN_MIGRATE = "false";
    const refusedByEnvironment = await run(
      "serve",
      "--types",
      "types/examples/cloudmail",
      "--port",
      "0",
      "--data",
      data,
    ).finally(() => delete process.env.APS_GEN_MIGRATE);
    expect(refusedByEnvironment.code).toBe(2);
    expect(refusedByEnvironment.err.at(-1)).toBe(refused.err.at(-1));
    const first = await run("migrate", "--data", data);
    expect(first.code, first.err.join("\n")).toBe(0);
    const [, applied, total] =
      /^✓ embedded database in .*: applied (\d+) of (\d+) migrations$/.exec(first.out.at(-1) ?? "") ?? [];
    expect(Number(applied)).toBeGreaterThan(0);
    expect(applied).toBe(total);
    const again = await run("migrate", "--data", data);
    expect(again.out).toEqual([`✓ embedded database in ${data}: all ${total} migrations already applied`]);
  }, 120_000);

  it("an unreachable database is one line, exit 2, without the password", async () => {
    const r = await run(
      "migrate",
      "--data",
      join(root, "unused"),
      "--database-url",
      "postgres://postgres:secret@127.0.0.1:1/none",
    );
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(/^aps-gen migrate: /);
    expect(r.err[0]).not.toContain("secret");
  }, 60_000);
});
