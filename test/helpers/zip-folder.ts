/** An .app.zip of a package folder, as a vendor would upload it, with files replaced by `patch`. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { zipSync } from "fflate";

export function zipFolder(dir: string, patch: Record<string, string> = {}): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const abs = join(d, name);
      if (statSync(abs).isDirectory()) walk(abs);
      else files[relative(dir, abs).split("\\").join("/")] = readFileSync(abs);
    }
  };
  walk(dir);
  for (const [path, text] of Object.entries(patch)) files[path] = new TextEncoder().encode(text);
  return zipSync(files);
}
