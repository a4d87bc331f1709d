import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative, sep } from "node:path";
import { unzipBounded } from "../../runtime/common/bounded-unzip.ts";

/** Raised when an input cannot be used at all (missing path, unreadable archive): exit code 2. */
export class InputError extends Error {
  override readonly name = "InputError";
}

/** Read access to the files of one package, wherever they live (folder or archive). */
export interface PackageSource {
  /** Display path of the package root, used as the prefix of every file path. */
  readonly root: string;
  readonly kind: "folder" | "zip";
  /** Paths of all files, relative to the root, with forward slashes, sorted. */
  list(): readonly string[];
  /** The text of a file, or undefined when it does not exist. */
  read(relativePath: string): string | undefined;
  /** The display path of a file of the package. */
  display(relativePath: string): string;
}

const decoder = new TextDecoder("utf-8");

/**
 * Files of a folder on disk. Listing is lazy because APP-META packages never need it. A text in
 * `overlay` (by absolute path) is read in place of the file's: an editor's unsaved document.
 */
export function folderSource(
  absRoot: string,
  displayRoot: string,
  overlay?: ReadonlyMap<string, string>,
): PackageSource {
  let files: string[] | undefined;
  return {
    root: displayRoot,
    kind: "folder",
    list: () => (files ??= walkFiles(absRoot)),
    read(rel) {
      const abs = join(absRoot, ...rel.split("/"));
      const unsaved = overlay?.get(abs);
      if (unsaved !== undefined) return unsaved;
      try {
        return readFileSync(abs, "utf8");
      } catch {
        return undefined;
      }
    },
    display: (rel) => `${displayRoot}/${rel}`,
  };
}

/**
 * Files of an `.app.zip` archive, read into memory once. When the archive wraps everything in
 * one top folder (as zipping a directory does), paths are taken relative to that folder.
 */
export function zipSource(absPath: string, displayRoot: string): PackageSource {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipBounded(readFileSync(absPath));
  } catch (error) {
    throw new InputError(
      `${displayRoot}: cannot read the archive (${(error as Error).message}); is it a valid .app.zip?`,
    );
  }
  const names = Object.keys(entries).filter((n) => !n.endsWith("/"));
  const prefix = commonTopFolder(names);
  const files = new Map<string, Uint8Array>();
  for (const name of names) files.set(name.slice(prefix.length), entries[name]!);
  const sorted = [...files.keys()].sort();
  return {
    root: displayRoot,
    kind: "zip",
    list: () => sorted,
    read(rel) {
      const bytes = files.get(rel);
      return bytes ? decoder.decode(bytes) : undefined;
    },
    display: (rel) => `${displayRoot}/${rel}`,
  };
}

function commonTopFolder(names: readonly string[]): string {
  if (names.includes("APP-META.xml") || names.length === 0) return "";
  const first = names[0]!.split("/")[0]!;
  const prefix = `${first}/`;
  return names.every((n) => n.startsWith(prefix)) ? prefix : "";
}

function walkFiles(absRoot: string): string[] {
  const out: string[] = [];
  const visit = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) visit(join(dir, entry.name), childRel);
      else if (entry.isFile()) out.push(childRel);
    }
  };
  visit(absRoot, "");
  return out.sort();
}

/** A path as shown to people: relative to the working directory, with forward slashes. */
export function displayPath(absPath: string, cwd: string): string {
  const rel = relative(cwd, absPath);
  return (rel === "" ? "." : rel).split(sep).join("/");
}

/** The kind of filesystem entry at a path, or undefined when there is none. */
export function entryKind(absPath: string): "file" | "directory" | undefined {
  try {
    const st = statSync(absPath);
    return st.isDirectory() ? "directory" : st.isFile() ? "file" : undefined;
  } catch {
    return undefined;
  }
}

/** The archive name without `.app.zip` / `.zip`, used to name the package. */
export function archiveBaseName(absPath: string): string {
  return basename(absPath).replace(/(\.app)?\.zip$/i, "");
}
