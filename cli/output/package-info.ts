import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../runtime/common/package-root.ts";

/** What aps-gen says about itself: `--version`, and the tool in a SARIF log. */
export interface PackageInfo {
  readonly name: string;
  readonly version: string;
  /** Where to read about aps-gen: package.json's `homepage`, else its npm page. */
  readonly homepage: string;
}

/** aps-gen's own package.json (found next to this module's folder). */
export function packageInfo(): PackageInfo {
  let json: { name?: string; version?: string; homepage?: string } = {};
  try {
    json = JSON.parse(readFileSync(join(packageRoot(import.meta.url), "package.json"), "utf8")) as typeof json;
  } catch {
    // An unreadable package.json: the fallbacks below.
  }
  const name = json.name ?? "aps-gen";
  return {
    name,
    version: json.version ?? "unknown",
    homepage: json.homepage ?? `https://www.npmjs.com/package/${name}`,
  };
}
