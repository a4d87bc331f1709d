import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The folder of aps-gen's package.json, found from the module that asks: the same whether the
 * code runs from the sources (generator/x.ts) or from the compiled package (dist/generator/x.js),
 * so files shipped beside the code (types/core/, package.json) are found either way.
 */
export function packageRoot(moduleUrl: string): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  for (;;) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "types", "core"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`aps-gen: cannot find its package folder above ${fileURLToPath(moduleUrl)}`);
    dir = parent;
  }
}
