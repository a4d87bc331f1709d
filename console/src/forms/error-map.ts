/**
 * Puts each validation error on the field it names: errors found in the browser (validate-form.ts)
 * and the `details` of the controller's error body (docs/aps/rest-api.md, "Errors") both name the
 * value by a JSON pointer into what was sent. A pointer below a field that is not shown (a member
 * of a JSON box, an item not in the form any more) goes to the nearest field above it, with the
 * rest of the pointer in front of the message; one naming no field at all (the whole body, an
 * unknown member) goes to the form's general error region.
 */
import { formatValidationError, pointerSegment } from "../../../runtime/common/validation-error.ts";
import type { FieldSpec, FormModel } from "./form-model.ts";
import type { FieldState, FormState } from "./form-state.ts";

/** An error as the console shows it: the project's ValidationError or a controller error detail. */
export interface ErrorDetail {
  readonly path: string;
  readonly code?: string;
  readonly message: string;
}

export interface MappedErrors {
  /** Messages by the pointer of the field they belong to. */
  readonly byField: ReadonlyMap<string, readonly string[]>;
  /** Messages that belong to no field. */
  readonly general: readonly string[];
}

/** The pointer of every field the form shows for `state`, array items included. */
export function fieldPointers(model: FormModel, state: FormState): Set<string> {
  const out = new Set<string>();
  const walk = (f: FieldSpec, s: FieldState | undefined, path: string): void => {
    out.add(path);
    if (f.input === "structure") {
      const o = (typeof s === "object" && !Array.isArray(s) ? s : {}) as Record<string, FieldState>;
      for (const m of f.fields ?? []) walk(m, o[m.key], `${path}/${pointerSegment(m.key)}`);
    } else if (f.input === "array" && Array.isArray(s)) {
      (s as FieldState[]).forEach((item, i) => {
        walk(f.item!, item, `${path}/${i}`);
      });
    }
  };
  for (const f of model.fields) walk(f, state[f.key], `/${pointerSegment(f.key)}`);
  return out;
}

/** Sorts errors onto the fields of `pointers` (fieldPointers), the rest into `general`. */
export function mapErrors(errors: readonly ErrorDetail[], pointers: ReadonlySet<string>): MappedErrors {
  const byField = new Map<string, string[]>();
  const general: string[] = [];
  for (const e of errors) {
    const path = typeof e.path === "string" ? e.path : "";
    let at = path;
    while (at !== "" && !pointers.has(at)) at = at.slice(0, at.lastIndexOf("/"));
    if (at === "") {
      general.push(formatValidationError({ path, code: "type", message: e.message }));
      continue;
    }
    const rest = path.slice(at.length + 1);
    const list = byField.get(at) ?? [];
    list.push(rest ? `${decodePointer(rest)}: ${e.message}` : e.message);
    byField.set(at, list);
  }
  return { byField, general };
}

/** `a~1b/0` -> `a/b/0`, for showing a pointer below a field to a person. */
function decodePointer(p: string): string {
  return p.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** The id of the element holding a field's errors, for aria-describedby: stable per pointer, valid as an id. */
export function errorElementId(formId: string, pointer: string): string {
  return `${formId}-err-${fieldIdPart(pointer)}`;
}

/** The id of a field's input. */
export function inputElementId(formId: string, pointer: string): string {
  return `${formId}-in-${fieldIdPart(pointer)}`;
}

/** A pointer as id characters: letters, digits and `_` kept, everything else as `-<code>-`. */
function fieldIdPart(pointer: string): string {
  return pointer.replace(/[^A-Za-z0-9_]/g, (c) => `-${c.codePointAt(0)!.toString(16)}-`);
}
