/**
 * A package folder chosen in the browser, made into the `.app.zip` that `POST /aps/2/packages`
 * takes (docs/aps/packages.md): the files below the chosen folder, at the archive's root, so that
 * its APP-META.xml is at the root as `aps build` puts it. Zipped with fflate, which the controller
 * unzips packages with too.
 */
import { zipSync, type Zippable } from "fflate";

/** One file of the folder: its path as the browser gives it (`<folder>/schemas/a.schema`) and its bytes. */
export interface FolderFile {
  readonly path: string;
  readonly data: Uint8Array;
}

/** The archive of `files`, their common top folder left out; throws when there is nothing to send. */
export function folderArchive(files: readonly FolderFile[]): Uint8Array {
  if (files.length === 0) throw new Error("The folder is empty.");
  const parts = files.map((f) => f.path.split("/").filter(Boolean));
  const top = parts[0]!.length > 1 && parts.every((p) => p.length > 1 && p[0] === parts[0]![0]) ? 1 : 0;
  const entries: Zippable = {};
  parts.forEach((p, i) => {
    entries[p.slice(top).join("/")] = files[i]!.data;
  });
  return zipSync(entries, { level: 6 });
}

/** The name of the chosen folder (the first segment of its files' paths), for the package's label. */
export function folderName(files: readonly FolderFile[]): string {
  return files[0]?.path.split("/").find(Boolean) ?? "folder";
}
