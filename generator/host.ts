import { type Dirent, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { hasBanner } from "./emit/core/banner.ts";

/** A file an emitter produced: a path below the output folder and its whole text. */
export interface GeneratedFile {
  /** Forward-slash path relative to the output folder. */
  readonly path: string;
  readonly content: string;
}

/** What applying a set of generated files did, or would do. */
export interface OutputReport {
  /** Files whose content is new or different. */
  readonly changed: readonly string[];
  /** Files that are missing from the output folder. */
  readonly added: readonly string[];
  /** Generated files (banner-marked) in the output folder that the build no longer produces. */
  readonly stale: readonly string[];
  /** Files we would write but that lack our banner: hand-written, so never overwritten. */
  readonly conflicts: readonly string[];
  readonly unchanged: number;
}

/**
 * Where generated output goes. Every emitter writes through one host, so `--check`,
 * `--dry-run` and tests in memory behave exactly like a real build.
 */
export interface OutputHost {
  /** Applies (or compares) the complete set of files of one build. */
  apply(files: readonly GeneratedFile[]): OutputReport;
}

/** Reads the current state of an output folder: generated files and their text. */
interface FolderState {
  read(path: string): string | undefined;
  /** Paths of banner-marked files currently present. */
  generatedPaths(): string[];
}

function diff(
  files: readonly GeneratedFile[],
  state: FolderState,
): OutputReport & { toWrite: GeneratedFile[]; toDelete: string[] } {
  const changed: string[] = [];
  const added: string[] = [];
  const conflicts: string[] = [];
  const toWrite: GeneratedFile[] = [];
  let unchanged = 0;
  const produced = new Set<string>();
  for (const f of files) {
    produced.add(f.path);
    const current = state.read(f.path);
    if (current === undefined) {
      added.push(f.path);
      toWrite.push(f);
    } else if (!hasBanner(current)) {
      conflicts.push(f.path);
    } else if (current !== f.content) {
      changed.push(f.path);
      toWrite.push(f);
    } else unchanged++;
  }
  const stale = state
    .generatedPaths()
    .filter((p) => !produced.has(p))
    .sort();
  return { changed, added, stale, conflicts, unchanged, toWrite, toDelete: stale };
}

function diskState(outDir: string): FolderState {
  // One walk of the folder finds every file there is, so a path that is not there is not tried:
  // on a fresh build each failed read threw an ENOENT error, thousands of them. Texts read for
  // the comparison are kept, because the scan for stale files needs each file's banner, and
  // reading every generated file a second time was a tenth of an up-to-date build.
  const present = listFiles(outDir);
  const known = new Map<string, string>();
  const textOf = (path: string): string | undefined => {
    if (!present.has(path)) return undefined;
    let text = known.get(path);
    if (text === undefined) {
      try {
        text = readFileSync(join(outDir, ...path.split("/")), "utf8");
      } catch {
        return undefined;
      }
      known.set(path, text);
    }
    return text;
  };
  return {
    read: textOf,
    generatedPaths() {
      const out: string[] = [];
      for (const path of present) {
        if (!path.endsWith(".gen.ts")) continue;
        const text = textOf(path);
        if (text !== undefined && hasBanner(text)) out.push(path);
      }
      return out;
    },
  };
}

/** Forward-slash paths, relative to `outDir`, of every file below it; empty when it does not exist. */
export function listFiles(outDir: string): Set<string> {
  const found = new Set<string>();
  const visit = (dir: string, prefix: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) visit(join(dir, e.name), `${prefix}${e.name}/`);
      else found.add(`${prefix}${e.name}`);
    }
  };
  visit(outDir, "");
  return found;
}

/** Writes changed files and deletes stale generated ones; never touches a file without our banner. */
export function diskHost(outDir: string): OutputHost {
  return {
    apply(files) {
      const report = diff(files, diskState(outDir));
      if (report.conflicts.length > 0) return report;
      const made = new Set<string>();
      for (const f of report.toWrite) {
        const abs = join(outDir, ...f.path.split("/"));
        const dir = dirname(abs);
        if (!made.has(dir)) mkdirSync(dir, { recursive: true });
        made.add(dir);
        writeFileSync(abs, f.content);
      }
      for (const p of report.toDelete) {
        const abs = join(outDir, ...p.split("/"));
        rmSync(abs);
        removeEmptiedFolders(dirname(abs), outDir);
      }
      return report;
    },
  };
}

/** Removes `dir` and the folders above it, up to `outDir`, while a deletion has left them empty. */
function removeEmptiedFolders(dir: string, outDir: string): void {
  for (let d = dir; d.startsWith(`${outDir}${sep}`) && readdirSync(d).length === 0; d = dirname(d)) rmdirSync(d);
}

/** Compares with what is on disk and writes nothing: `build --check` and `build --dry-run`. */
export function compareHost(outDir: string): OutputHost {
  return { apply: (files) => diff(files, diskState(outDir)) };
}

/** Keeps output in memory (tests, the controller's package import). */
export function memoryHost(
  initial: ReadonlyMap<string, string> = new Map(),
): OutputHost & { readonly files: Map<string, string> } {
  const files = new Map(initial);
  return {
    files,
    apply(generated) {
      const report = diff(generated, {
        read: (p) => files.get(p),
        generatedPaths: () => [...files.entries()].filter(([, text]) => hasBanner(text)).map(([p]) => p),
      });
      if (report.conflicts.length > 0) return report;
      for (const f of report.toWrite) files.set(f.path, f.content);
      for (const p of report.toDelete) files.delete(p);
      return report;
    },
  };
}

/** True when the output already matches the build exactly. */
export function isUpToDate(report: OutputReport): boolean {
  return report.changed.length + report.added.length + report.stale.length + report.conflicts.length === 0;
}
