/**
 * Type ids compared as the platform compares them: the version after the last `/` is a version,
 * not text, so `…/notification-manager/1` names the type declared `…/notification-manager/1.0`
 * (docs/aps/types.md: major and minor compare as integers; FallBall queries `implementing(…/1)`,
 * docs/platform-forms.md §1.3).
 */

/** Whether two type ids name the same type, their versions compared as numbers (`/1` = `/1.0`). */
export function sameTypeId(a: string, b: string): boolean {
  if (a === b) return true;
  const slashA = a.lastIndexOf("/");
  const slashB = b.lastIndexOf("/");
  if (slashA < 0 || slashB < 0 || a.slice(0, slashA) !== b.slice(0, slashB)) return false;
  const va = versionParts(a.slice(slashA + 1));
  const vb = versionParts(b.slice(slashB + 1));
  if (!va || !vb) return false;
  for (let i = 0; i < Math.max(va.length, vb.length); i++) if ((va[i] ?? 0) !== (vb[i] ?? 0)) return false;
  return true;
}

/** `1.0` → [1, 0]; anything that is not dotted digits → undefined (compared as text only). */
function versionParts(version: string): number[] | undefined {
  return /^\d+(\.\d+)*$/.test(version) ? version.split(".").map(Number) : undefined;
}
