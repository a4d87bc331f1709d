/**
 * Recognising a link the database refused because its target is gone or being unprovisioned:
 * the `links_target_live` trigger of migration 0007 raises SQLSTATE AP409, and the foreign key
 * of `links.target_id` 23503 when the target was deleted after the trigger looked.
 */
const TARGET_NOT_LIVE = "AP409";
const FOREIGN_KEY_VIOLATION = "23503";

/** True when `error` (or what it wraps: drizzle puts the driver's error in `cause`) is such a refusal. */
export function isLinkTargetGone(error: unknown): boolean {
  for (let e = error, hops = 0; e && typeof e === "object" && hops < 5; e = (e as { cause?: unknown }).cause, hops++) {
    const code = (e as { code?: unknown }).code;
    if (code === TARGET_NOT_LIVE) return true;
    if (
      code === FOREIGN_KEY_VIOLATION &&
      /links/.test(
        String(
          (e as { constraint_name?: unknown; constraint?: unknown }).constraint_name ??
            (e as { constraint?: unknown }).constraint ??
            (e as { message?: unknown }).message ??
            "",
        ),
      )
    )
      return true;
  }
  return false;
}
