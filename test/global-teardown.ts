import { readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKED_PREFIX } from "./helpers/packed-package.ts";

/** After the whole run: the packed installs tests shared are removed (temporary folders do not pile up). */
export default function setup(): () => void {
  return () => {
    for (const name of readdirSync(tmpdir())) if (name.startsWith(PACKED_PREFIX)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  };
}
