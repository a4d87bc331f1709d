/**
 * The record of the last clean build into an output folder, so that a build whose inputs, options
 * and aps-gen itself have not changed since, and whose output nobody has touched, does nothing
 * instead of compiling and emitting everything to find that out (as tsc's --incremental and
 * build tools' caches do). A 1000-type package: 2.2-2.35 s to learn it is up to date, against a
 * walk and a hash of its declarations.
 *
 * What it is keyed by, all of it hashed: every file below each input (so a file added, changed
 * or removed anywhere there counts), the options of the command and the config file, and the
 * code of aps-gen that builds (its CLI and the core type declarations). A package with PHP files
 * is never cached: PHP may include files outside its folder. The output folder must hold exactly
 * the files the build left, each with the size and modification time it had. `build --check`,
 * `--dry-run` and `--watch` never read it, and only a build without any diagnostic writes it
 * (so a warning is printed by every build). It lives in node_modules/.cache/aps-gen/ of the
 * working folder, as other tools keep theirs; without a node_modules folder nothing is kept.
 */
import { createHash, type Hash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { listFiles as listFolder } from "../../generator/host.ts";
import { packageRoot } from "../../runtime/common/package-root.ts";

/** What a build left, to be found again as it was. */
interface BuildRecord {
  readonly key: string;
  readonly outputs: readonly { readonly path: string; readonly size: number; readonly mtimeMs: number }[];
  /** The lines the build printed before its last (the services loaded per package). */
  readonly summary: readonly string[];
  readonly types: number;
}

/** A build's cache entry: whether it is up to date, and how to record a clean build. */
export interface BuildCache {
  /** The last build's record when nothing has changed since; else undefined. */
  readonly hit: BuildRecord | undefined;
  save(summary: readonly string[], types: number): void;
}

/** The cache entry of a build of `inputs` into `outDir`; undefined when such a build cannot be cached. */
export function openBuildCache(
  inputs: readonly string[],
  options: object,
  outDir: string,
  cwd: string,
): BuildCache | undefined {
  const modules = join(cwd, "node_modules");
  if (!existsSync(modules)) return undefined;
  const hash = createHash("sha256");
  hash.update(JSON.stringify(options, (_k, v: unknown) => (v instanceof Map ? [...v] : v)));
  hashCode(hash);
  for (const input of inputs) if (!hashInput(hash, resolve(cwd, input))) return undefined;
  const key = hash.digest("hex");
  const file = join(
    modules,
    ".cache/aps-gen",
    `build-${createHash("sha1").update(outDir).digest("hex").slice(0, 16)}.json`,
  );
  return {
    hit: readRecord(file, key, outDir),
    save(summary, types) {
      const outputs = listFiles(outDir).map((path) => {
        const s = statSync(join(outDir, path));
        return { path, size: s.size, mtimeMs: s.mtimeMs };
      });
      const record: BuildRecord = { key, outputs, summary, types };
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(record));
    },
  };
}

function readRecord(file: string, key: string, outDir: string): BuildRecord | undefined {
  let record: BuildRecord;
  try {
    record = JSON.parse(readFileSync(file, "utf8")) as BuildRecord;
  } catch {
    return undefined;
  }
  if (record.key !== key) return undefined;
  const present = listFiles(outDir);
  if (present.length !== record.outputs.length) return undefined;
  for (let i = 0; i < present.length; i++) {
    const want = record.outputs[i]!;
    if (present[i] !== want.path) return undefined;
    const s = statSync(join(outDir, want.path));
    if (s.size !== want.size || s.mtimeMs !== want.mtimeMs) return undefined;
  }
  return record;
}

/** Every file below `input` (or the file itself), by path and content; false when one is PHP or the input is missing. */
function hashInput(hash: Hash, input: string): boolean {
  if (!existsSync(input)) return false;
  if (!statSync(input).isDirectory()) {
    hash.update(`\0${input}\0`).update(readFileSync(input));
    return !input.endsWith(".php");
  }
  for (const path of listFiles(input)) {
    if (path.endsWith(".php")) return false;
    hash.update(`\0${input}/${path}\0`).update(readFileSync(join(input, path)));
  }
  return true;
}

/** aps-gen's own code that a build runs: the CLI bundle when installed, the sources in a checkout, and the core types. */
function hashCode(hash: Hash): void {
  const here = fileURLToPath(import.meta.url);
  const root = packageRoot(import.meta.url);
  const folders = here.endsWith(".ts")
    ? ["cli", "generator", "runtime/common", "types/core"]
    : [relative(root, dirname(here)), "types/core"];
  hash.update(readFileSync(join(root, "package.json")));
  for (const folder of folders)
    for (const path of listFiles(join(root, folder)))
      hash.update(`\0${folder}/${path}\0`).update(readFileSync(join(root, folder, path)));
}

/** Forward-slash paths of every file below `dir`, sorted; empty when it does not exist. */
function listFiles(dir: string): string[] {
  return [...listFolder(dir)].sort();
}
