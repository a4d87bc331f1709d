/**
 * The files of a package, served by `GET /aps/2/packages/{id}/<path>`: from the archive that
 * was imported, or from the folder given with `--types`. No path may leave the package.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { join, sep } from "node:path";
import { unzipBounded } from "../../common/bounded-unzip.ts";

/** Read access to a package's files by relative path (forward slashes). */
export interface PackageFiles {
  /** The bytes of a file, or undefined when there is none (or the path would leave the package). */
  read(path: string): Uint8Array | undefined;
}

/** A relative path that stays inside its root: no `..`, no absolute paths, no backslashes, no NUL. */
function safeRelativePath(path: string): string | undefined {
  if (path === "" || path.includes("\0") || path.includes("\\") || path.startsWith("/")) return undefined;
  const parts = path.split("/");
  if (parts.some((p) => p === ".." || p === "." || p === "")) return undefined;
  return parts.join("/");
}

/** Files of an `.app.zip` held in memory (entries under one top folder are taken relative to it). */
export function archiveFiles(archive: Uint8Array): PackageFiles {
  let entries: Map<string, Uint8Array> | undefined;
  const load = () => {
    if (entries) return entries;
    // Bounded like the import was (common/bounded-unzip.ts), so serving a file never inflates a bomb.
    const raw = unzipBounded(archive);
    const names = Object.keys(raw).filter((n) => !n.endsWith("/"));
    const top = names[0]?.split("/")[0];
    const prefix =
      !names.includes("APP-META.xml") && top && names.every((n) => n.startsWith(`${top}/`)) ? `${top}/` : "";
    entries = new Map(names.map((n) => [n.slice(prefix.length), raw[n]!]));
    return entries;
  };
  return {
    read(path) {
      const safe = safeRelativePath(path);
      return safe === undefined ? undefined : load().get(safe);
    },
  };
}

/** Files of a package folder on disk; symbolic links that lead outside it are refused. */
export function folderFiles(root: string): PackageFiles {
  const realRoot = realpathSync(root);
  return {
    read(path) {
      const safe = safeRelativePath(path);
      if (safe === undefined) return undefined;
      try {
        const real = realpathSync(join(realRoot, ...safe.split("/")));
        if (!real.startsWith(realRoot + sep) || !statSync(real).isFile()) return undefined;
        return readFileSync(real);
      } catch {
        return undefined;
      }
    },
  };
}
