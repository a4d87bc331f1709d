import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./paths.ts";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Folder names every packed install of a test run is made under; the global teardown removes them. */
export const PACKED_PREFIX = "aps-gen-packed-";
/** File in a packed install's folder naming the test run that made it (test/global-teardown.ts). */
export const PACKED_RUN_FILE = "made-by-run";

/**
 * This checkout as a user gets it: `npm pack` (which builds dist/ first), then the tarball
 * installed with its dependencies into an empty project in the temporary folder, with npm's
 * cache and no network (`--prefer-offline`). Done once per content of the package's files in
 * a test run, whichever test file asks first. Returns the consumer project's folder.
 */
export function packedInstall(): string {
  const dir = join(tmpdir(), `${PACKED_PREFIX}${contentHash()}`);
  const consumer = join(dir, "consumer");
  if (existsSync(join(dir, "done"))) return consumer;
  // Test files in other workers may ask at the same time: one packs, the others wait for it.
  // One left half made by a run that was killed (older than ten minutes) is made again.
  if (existsSync(dir) && Date.now() - statSync(dir).mtimeMs > 600_000) rmSync(dir, { recursive: true, force: true });
  try {
    mkdirSync(dir);
  } catch {
    const end = Date.now() + 300_000;
    while (!existsSync(join(dir, "done"))) {
      if (Date.now() > end) throw new Error(`waited 300 s for another test file to pack aps-gen into ${dir}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
    return consumer;
  }
  if (process.env.APS_GEN_TEST_RUN) writeFileSync(join(dir, PACKED_RUN_FILE), process.env.APS_GEN_TEST_RUN);
  mkdirSync(consumer, { recursive: true });
  const pack = spawnSync(npm, ["pack", "--pack-destination", dir, "--silent"], { cwd: repoRoot, encoding: "utf8" });
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}${pack.stdout}`);
  const tarball = join(dir, pack.stdout.trim().split("\n").at(-1)!);
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  const install = spawnSync(npm, ["install", tarball, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: consumer, encoding: "utf8" });
  if (install.status !== 0) throw new Error(`npm install of the tarball failed: ${install.stderr}${install.stdout}`);
  writeFileSync(join(dir, "done"), tarball);
  return consumer;
}

/** The tarball `packedInstall` made. */
export function packedTarball(consumer: string): string {
  return readFileSync(join(consumer, "..", "done"), "utf8");
}

/** A hash of every file the package ships or builds from, so a changed checkout packs again. */
function contentHash(): string {
  const hash = createHash("sha1");
  const walk = (rel: string) => {
    const abs = join(repoRoot, rel);
    if (statSync(abs).isDirectory()) for (const name of readdirSync(abs).sort()) walk(join(rel, name));
    else hash.update(rel).update(readFileSync(abs));
  };
  for (const rel of ["package.json", "tsconfig.json", "tsconfig.build.json", "bin", "scripts", "cli", "generator", "runtime", "types/core"]) walk(rel);
  return hash.digest("hex").slice(0, 12);
}
