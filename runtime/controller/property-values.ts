/** A resource's property values as a whole: the jsonb body with the sealed (encrypted) ones opened, and changes applied to them. */
import type { PropertySealer } from "./support/encryption.ts";
import type { StoredResource } from "./store/resource-store.ts";

/** Every property value of a stored resource, encrypted ones opened. */
export function storedValues(row: StoredResource, sealer: PropertySealer): Record<string, unknown> {
  return { ...row.body, ...(row.secrets ? sealer.open(row.id, row.secrets) : {}) };
}

/**
 * Applies a configure body to `current` in place (SPEC 2.2: `null` clears a property; `aps` is
 * not a property) and returns the changes as given.
 */
export function applyChanges(current: Record<string, unknown>, input: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (k === "aps" || v === undefined) continue;
    changes[k] = v;
    if (v === null) delete current[k];
    else current[k] = v;
  }
  return changes;
}
