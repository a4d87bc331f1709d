import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./paths.ts";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Folder names the package's stages are made under (in the run's temporary folder: test/global-setup.ts). */
const PACKED_PREFIX = "aps-gen-packed-";

/**
 * This checkout made into what users get, in two stages, each once per test run and content of
 * the package's files, by whoever claims it first: a background process started as the run
 * starts (test/run-sequencer.ts), else the first test file that asks.
 * - `build`: `npm run build` writes dist/ in the checkout, as `npm pack` would before packing.
 * - `install`: `npm pack` of the checkout (dist/ already built), then the tarball installed with
 *   its dependencies into an empty project, from npm's cache without the network
 *   (`--prefer-offline`).
 */
export type Stage = "build" | "install";

/** What each stage leaves in the folder when it is done; FAILED says which failed and why. */
const MARKER: Record<Stage, string> = { build: "built", install: "done" };
const FAILED = "failed";

/** Starts the stages in a background process, for a run whose files will ask for them: they find them made, or being made. */
export function startPackageStages(stages: readonly Stage[]): void {
  const dir = packedFolder();
  if (stages.every((s) => existsSync(join(dir, `${s}.claim`)))) return;
  spawn(process.execPath, stagesArgs(dir, stages), { stdio: "ignore" }).on("error", () => undefined);
}

/**
 * The CLI as dist/ has it (what the installed package runs), for tests that start `serve`
 * processes: plain Node starts it in ~1.8 s of CPU, where bin/aps-gen.js in a checkout runs the
 * sources through tsx in ~3.1 s. Resolves to the entry script to give `node` once dist/ is built.
 */
export async function builtCli(): Promise<string> {
  const dir = packedFolder();
  startPackageStages(["build"]);
  const since = Date.now();
  while (!ready(dir, "build", since)) await new Promise((r) => setTimeout(r, 100));
  return join(repoRoot, "test/helpers/built-cli.mjs");
}

/** The packed install (stage `install`): the folder of the consumer project it was installed into. */
export function packedInstall(): string {
  const dir = packedFolder();
  if (!existsSync(join(dir, "install.claim")))
    spawnSync(process.execPath, stagesArgs(dir, ["build", "install"]), { stdio: "ignore" });
  // Made here, or being made by the background process or another worker: wait for it.
  const since = Date.now();
  while (!ready(dir, "install", since)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  return join(dir, "consumer");
}

/** The tarball `packedInstall` made. */
export function packedTarball(consumer: string): string {
  return readFileSync(join(consumer, "..", MARKER.install), "utf8");
}

/** Whether `stage` is done; throws why when a stage failed, or when it is not done 300 s after `since`. */
function ready(dir: string, stage: Stage, since: number): boolean {
  if (existsSync(join(dir, MARKER[stage]))) return true;
  if (existsSync(join(dir, FAILED))) throw new Error(readFileSync(join(dir, FAILED), "utf8"));
  if (Date.now() - since > 300_000) throw new Error(`waited 300 s for aps-gen's ${stage} stage in ${dir}`);
  return false;
}

let folder: string | undefined;

function packedFolder(): string {
  folder ??= join(tmpdir(), `${PACKED_PREFIX}${contentHash()}`);
  mkdirSync(folder, { recursive: true });
  return folder;
}

/**
 * `node -e` arguments that make `stages` in `dir`: each stage is made by the process that claims
 * it (mkdir is atomic), after the stages before it are done; a stage claimed by another process
 * is left to it. Writes the stage's marker, or FAILED with the step that failed and its output.
 */
function stagesArgs(dir: string, stages: readonly Stage[]): string[] {
  const script = `
const { spawnSync } = require("node:child_process");
const { existsSync, mkdirSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
const [dir, repo, npm, ...stages] = process.argv.slice(1);
const claim = (stage) => { try { mkdirSync(join(dir, stage + ".claim")); return true; } catch { return false; } };
const run = (command, args, cwd, what) => {
  const r = spawnSync(command, args, { cwd, encoding: "utf8", shell: process.platform === "win32" && command === npm });
  if (r.status !== 0) { writeFileSync(join(dir, "${FAILED}"), what + " failed: " + (r.stderr || "") + (r.stdout || "") + (r.error || "")); process.exit(1); }
  return r.stdout;
};
if (stages.includes("build") && claim("build")) {
  run(process.execPath, [join(repo, "scripts/build-package.mjs")], repo, "npm run build");
  writeFileSync(join(dir, "${MARKER.build}"), "");
}
if (stages.includes("install") && claim("install")) {
  while (!existsSync(join(dir, "${MARKER.build}"))) {
    if (existsSync(join(dir, "${FAILED}"))) process.exit(1);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
  const consumer = join(dir, "consumer");
  mkdirSync(consumer, { recursive: true });
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  const tarball = join(dir, run(npm, ["pack", "--ignore-scripts", "--pack-destination", dir, "--silent"], repo, "npm pack").trim().split("\\n").at(-1));
  run(npm, ["install", tarball, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], consumer, "npm install of the tarball");
  writeFileSync(join(dir, "${MARKER.install}"), tarball);
}
`;
  return ["-e", script, dir, repoRoot, npm, ...stages];
}

/** Folders under those hashed that are made from them, not sources. */
const SKIPPED = new Set([join("console", "build"), join("console", "node_modules")]);

/** A hash of every file the package ships or builds from, so a changed checkout is built again. */
function contentHash(): string {
  const hash = createHash("sha1");
  const walk = (rel: string) => {
    const abs = join(repoRoot, rel);
    if (!existsSync(abs) || SKIPPED.has(rel)) return;
    if (statSync(abs).isDirectory()) for (const name of readdirSync(abs).sort()) walk(join(rel, name));
    else hash.update(rel).update(readFileSync(abs));
  };
  // console/: the console's sources, built into dist/console (not its own build output).
  for (const rel of [
    "package.json",
    "tsconfig.json",
    "tsconfig.build.json",
    "bin",
    "scripts",
    "cli",
    "generator",
    "runtime",
    "types/core",
    "console",
  ])
    walk(rel);
  return hash.digest("hex").slice(0, 12);
}
