import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The files of a folder by their path inside it (with `prefix`), for zipping a package. */
export function filesOf(dir: string, prefix = ""): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const abs = join(dir, e.name);
    if (e.isDirectory()) Object.assign(out, filesOf(abs, `${prefix}${e.name}/`));
    else out[`${prefix}${e.name}`] = readFileSync(abs);
  }
  return out;
}
