/**
 * Recognising an insert the database refused because the owner account of the new resource (or
 * the parent of a new account) is gone: the `resources_owner_account_exists` trigger of
 * migration 0006 raises SQLSTATE AP401. It happens when a provisioning races the delete of its
 * caller's account, before the revocation feed has told this process.
 */
const OWNER_ACCOUNT_GONE = "AP401";

/** True when `error` (or what it wraps: drizzle puts the driver's error in `cause`) is such a refusal. */
export function isOwnerAccountGone(error: unknown): boolean {
  for (let e = error, hops = 0; e && typeof e === "object" && hops < 5; e = (e as { cause?: unknown }).cause, hops++) {
    if ((e as { code?: unknown }).code === OWNER_ACCOUNT_GONE) return true;
  }
  return false;
}
