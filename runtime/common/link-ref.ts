/**
 * Reading a link reference (`{"aps": {"id": "<resource id>"}}`, the shape {@link ApsLinkRef}),
 * used for relation values, link calls and properties typed with a type id. Whether the resource
 * exists, and has the right type, needs the store: the controller checks that, not these readers.
 */
import type { ApsLinkRef } from "./types.ts";
import { typeError, type ValidationError } from "./validation-error.ts";

/** The resource id `v` references when it is an {@link ApsLinkRef}; undefined for anything else. */
export function linkRefId(v: unknown): string | undefined {
  const aps = typeof v === "object" && v !== null && !Array.isArray(v) ? (v as { aps?: unknown }).aps : undefined;
  const id = typeof aps === "object" && aps !== null ? (aps as { id?: unknown }).id : undefined;
  return typeof id === "string" ? id : undefined;
}

/** A link reference to the resource `id`. */
export function linkRef(id: string): ApsLinkRef {
  return { aps: { id } };
}

/** Pushes an error unless `v` is an object whose `aps.id` is a string. */
export function checkLinkRef(v: unknown, path: string, errors: ValidationError[]): void {
  if (linkRefId(v) !== undefined) return;
  errors.push(typeError(path, 'a link {"aps": {"id": "<resource id>"}}', v));
}
