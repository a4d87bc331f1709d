import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./paths.ts";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Folder names packed installs are made under (in the run's temporary folder: test/global-setup.ts). */
const PACKED_PREFIX = "aps-gen-packed-";

/**
 * This checkout as a user gets it: `npm pack` (which builds dist/ first), then the tarball
 * installed with its dependencies into an empty project in the temporary folder, with npm's
 * cache and no network (`--prefer-offline`). Made once per content of the package's files in a
 * test run: in the background from the start of a run whose files need it
 * (test/pack-ahead-sequencer.ts), else by the first test file that asks. Returns the consumer
 * project's folder.
 */
export function packedInstall(): string {
  const dir = packedFolder();
  const consumer = join(dir, "consumer");
  if (existsSync(join(dir, "done"))) return consumer;
  // One left half made by a run that was killed (older than ten minutes) is made again.
  if (existsSync(dir) && Date.now() - statSync(dir).mtimeMs > 600_000) rmSync(dir, { recursive: true, force: true });
  if (claim(dir)) spawnSync(process.execPath, packArgs(dir), { stdio: "ignore" });
  // Made here, or being made by the background packer or another worker: wait for it.
  const end = Date.now() + 300_000;
  while (!existsSync(join(dir, "done"))) {
    if (existsSync(join(dir, FAILED))) throw new Error(readFileSync(join(dir, FAILED), "utf8"));
    if (Date.now() > end) throw new Error(`waited 300 s for aps-gen to be packed into ${dir}`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
  return consumer;
}

/**
 * Starts making the packed install in a background process, for a run whose test files will ask
 * for it: they find it made, or wait for it, instead of one of them making it while the others
 * wait (three files asked at once and held three of four workers for ~25 s). Does nothing when it
 * is made or being made.
 */
export function startPackedInstall(): void {
  const dir = packedFolder();
  if (existsSync(join(dir, "done")) || !claim(dir)) return;
  spawn(process.execPath, packArgs(dir), { stdio: "ignore" }).on("error", (error) => writeFileSync(join(dir, FAILED), String(error)));
}

/** Written instead of `done` when packing failed, with why: the test files asking say so. */
const FAILED = "failed";

function packedFolder(): string {
  return join(tmpdir(), `${PACKED_PREFIX}${contentHash()}`);
}

/** mkdir is atomic: whoever creates the folder makes the install. */
function claim(dir: string): boolean {
  try {
    mkdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

/**
 * `node -e` arguments that pack and install into `dir`: npm pack, then npm install of the tarball
 * into `dir/consumer`; `done` names the tarball, or `failed` says which step failed and why.
 */
function packArgs(dir: string): string[] {
  const script = `
const { spawnSync } = require("node:child_process");
const { mkdirSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
const [dir, repo, npm] = process.argv.slice(1);
const consumer = join(dir, "consumer");
mkdirSync(consumer, { recursive: true });
writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
const step = (args, cwd, what) => {
  const r = spawnSync(npm, args, { cwd, encoding: "utf8", shell: process.platform === "win32" });
  if (r.status !== 0) { writeFileSync(join(dir, "${FAILED}"), what + " failed: " + (r.stderr || "") + (r.stdout || "") + (r.error || "")); process.exit(1); }
  return r.stdout;
};
const tarball = join(dir, step(["pack", "--pack-destination", dir, "--silent"], repo, "npm pack").trim().split("\\n").at(-1));
step(["install", tarball, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], consumer, "npm install of the tarball");
writeFileSync(join(dir, "done"), tarball);
`;
  return ["-e", script, dir, repoRoot, npm];
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
