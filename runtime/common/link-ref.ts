/**
 * The shape of a link reference (`{"aps": {"id": "<resource id>"}}`), used for relation values
 * and for properties typed with a type id. Whether the resource exists, and has the right
 * type, needs the store: the controller checks that, not these validators.
 */
import { typeError, type ValidationError } from "./validation-error.ts";

/** Pushes an error unless `v` is an object whose `aps.id` is a string. */
export function checkLinkRef(v: unknown, path: string, errors: ValidationError[]): void {
  const aps = typeof v === "object" && v !== null && !Array.isArray(v) ? (v as { aps?: unknown }).aps : undefined;
  const id = typeof aps === "object" && aps !== null ? (aps as { id?: unknown }).id : undefined;
  if (typeof id === "string") return;
  errors.push(typeError(path, 'a link {"aps": {"id": "<resource id>"}}', v));
}
