import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeRunFolder } from "./run-folder.ts";

describe("a test run's temporary folder", () => {
  const base = mkdtempSync(join(tmpdir(), "aps-run-folder-"));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it("is made under a TMPDIR that is set, owned by this process, and becomes the temporary folder of what the run starts", () => {
    const env: NodeJS.ProcessEnv = { TMPDIR: base };
    const folder = makeRunFolder("run-a", env);
    expect(folder).toBe(join(base, "aps-gen-test-run-a"));
    expect(readFileSync(join(folder, "owner.pid"), "utf8")).toBe(String(process.pid));
    expect([env.TMPDIR, env.TMP, env.TEMP]).toEqual([folder, folder, folder]);
  });

  it("removes the folders of runs whose process is gone, and keeps live runs' and other folders", () => {
    const gone = spawnSync(process.execPath, ["-e", ""]).pid!;
    const abandoned = join(base, "aps-gen-test-killed");
    mkdirSync(abandoned);
    writeFileSync(join(abandoned, "owner.pid"), String(gone));
    const live = join(base, "aps-gen-test-live");
    mkdirSync(live);
    writeFileSync(join(live, "owner.pid"), String(process.pid));
    const other = join(base, "someone-elses");
    mkdirSync(other);
    makeRunFolder("run-b", { TMPDIR: base });
    expect([abandoned, live, other, join(base, "aps-gen-test-run-b")].map(existsSync)).toEqual([
      false,
      true,
      true,
      true,
    ]);
  });
});
