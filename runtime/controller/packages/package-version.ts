/**
 * Package versions as APP-META.xml writes them (`<version>` and `<release>`, dotted numbers) and
 * how they compare: what installing by version (instances/platform-install.ts) and upgrading
 * (instances/instance-upgrade.ts) pick and refuse by.
 */

/** Dotted versions compared part by part as numbers (missing parts are 0); non-numeric parts as text. */
export function compareVersions(a: string, b: string): number {
  const x = a.split(".");
  const y = b.split(".");
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i] ?? "0";
    const q = y[i] ?? "0";
    const d = /^\d+$/.test(p) && /^\d+$/.test(q) ? Number(p) - Number(q) : p.localeCompare(q);
    if (d) return Math.sign(d);
  }
  return 0;
}

/** "1" and 1 and "1.0" are one version (apsconnect-cli sends what its package file says, a number or a string). */
export function sameVersion(have: string, asked: unknown): boolean {
  if (typeof asked !== "string" && typeof asked !== "number") return false;
  return compareVersions(have, String(asked)) === 0;
}

/** A package's version and release together: version first, release when versions are equal. */
export function comparePackageVersions(
  a: { version: string; release: string },
  b: { version: string; release: string },
): number {
  return compareVersions(a.version, b.version) || compareVersions(a.release, b.release);
}

/**
 * `<version>-<release>` (`1.0-1`), as the upgrade call's `version` query names the version
 * upgraded from: the PHP runtime hands `upgrade($version)` that form (`2.0-3`) and the Connect
 * extension parses it (docs/platform-forms.md §2.3, §2.4).
 */
export function versionText(p: { version: string; release: string }): string {
  return p.release ? `${p.version}-${p.release}` : p.version;
}
