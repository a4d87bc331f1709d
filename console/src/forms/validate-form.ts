/**
 * Checks a filled-in form in the browser before anything is sent, with the rules and messages of
 * the project's validators: the error builders the generated validators call
 * (runtime/common/validation-rules.ts), the same type, range, length, pattern, enum, array,
 * structure and link rules (generator/emit/validators/value-check.ts), and the controller's own
 * conversion of path and query parameters (runtime/common/parameter-text.ts). The generated
 * validator modules themselves are compiled per package on the server and are not shipped to the
 * browser; this walks the compiled form instead, which carries the same declaration.
 *
 * Errors carry JSON pointers into the body (`/name`, `/list/0/member`, `/query/limit`), as the
 * controller's do, so error-map.ts puts both on their field the same way.
 */
import { firstDuplicate, apsEqual } from "../../../runtime/common/aps-equality.ts";
import { Limits } from "../../../runtime/common/limits.ts";
import { checkLinkRef } from "../../../runtime/common/link-ref.ts";
import { convertParameter } from "../../../runtime/common/parameter-text.ts";
import {
  codePointLength,
  jsonTextLength,
  pointerSegment,
  typeError,
  type ValidationError,
} from "../../../runtime/common/validation-error.ts";
import {
  int64Error,
  isInt64,
  missing,
  notInEnum,
  nullRequired,
  overStringLimit,
  patternMismatch,
  repeatedItem,
  structureArrayTooLong,
  tooFewItems,
  tooLong,
  tooManyItems,
  tooShort,
} from "../../../runtime/common/validation-rules.ts";
import { jsonText } from "../../../runtime/client/json.ts";
import type { FieldSpec, FormModel } from "./form-model.ts";
import { InvalidJson } from "./form-state.ts";

/** Every error of the form's values (formValues), none when it may be sent. */
export function validateForm(model: FormModel, values: Readonly<Record<string, unknown>>): ValidationError[] {
  const errors: ValidationError[] = [];
  for (const f of model.fields) {
    if (!f.editable) continue;
    checkField(f, values[f.key], `/${pointerSegment(f.key)}`, model.topRequired && f.required, errors);
  }
  return errors;
}

/**
 * Every error of a configure body (form-state.ts changedValues): the members it changes, checked
 * as the generated update validator checks them; a required property sent as null (emptied) is
 * refused, as the controller would.
 */
export function validateChanges(model: FormModel, changes: Readonly<Record<string, unknown>>): ValidationError[] {
  const errors: ValidationError[] = [];
  for (const f of model.fields) {
    if (!f.editable || !(f.key in changes)) continue;
    const path = `/${pointerSegment(f.key)}`;
    const v = changes[f.key];
    if (v === null) {
      if (f.required) errors.push(nullRequired(path));
      continue;
    }
    checkField(f, v, path, false, errors);
  }
  return errors;
}

/** Checks one value; `required` says whether leaving it out is an error here. */
function checkField(f: FieldSpec, v: unknown, path: string, required: boolean, errors: ValidationError[]): void {
  if (v === undefined) {
    if (required) errors.push(missing(path));
    return;
  }
  if (v instanceof InvalidJson) {
    errors.push({ path, code: "type", message: `is not valid JSON: ${v.reason}` });
    return;
  }
  if (f.parameterType !== undefined) {
    const r = convertParameter(String(v), f.parameterType);
    if (!r.ok) errors.push({ path, code: r.code, message: r.message });
    else if (typeof r.value === "string") stringChecks(f, r.value, path, errors);
    return;
  }
  switch (f.valueType) {
    case "string":
      if (typeof v !== "string") errors.push(typeError(path, "a string", v));
      else stringChecks(f, v, path, errors);
      return;
    case "integer":
      if (!isInt64(v)) errors.push(int64Error(path, v));
      else enumCheck(f, v, path, errors);
      return;
    case "number":
      if (typeof v !== "number" && typeof v !== "bigint") errors.push(typeError(path, "a number", v));
      else enumCheck(f, v, path, errors);
      return;
    case "boolean":
      if (typeof v !== "boolean") errors.push(typeError(path, "true or false", v));
      else enumCheck(f, v, path, errors);
      return;
    case "object":
      if (!isObject(v)) errors.push(typeError(path, "an object", v));
      else enumCheck(f, v, path, errors);
      return;
    case "array":
      arrayChecks(f, v, path, errors);
      return;
    case "structure": {
      if (!isObject(v)) {
        errors.push(typeError(path, `an object (structure ${f.structure ?? f.label})`, v));
        return;
      }
      for (const m of f.fields ?? []) {
        if (!m.editable) continue;
        checkField(m, v[m.key], `${path}/${pointerSegment(m.key)}`, m.required, errors);
      }
      return;
    }
    case "link":
      checkLinkRef(v, path, errors);
      return;
    case "any":
      return;
  }
}

function stringChecks(f: FieldSpec, v: string, path: string, errors: ValidationError[]): void {
  const limit = Limits.maxStringLength;
  const max = f.maxLength !== undefined && f.maxLength < limit ? f.maxLength : limit;
  if (codePointLength(v) > max) errors.push(max < limit ? tooLong(path, v, max) : overStringLimit(path, v));
  if (f.minLength !== undefined && f.minLength > 0 && codePointLength(v) < f.minLength)
    errors.push(tooShort(path, v, f.minLength));
  if (f.pattern !== undefined) {
    const re = patternOf(f.pattern);
    if (re && !re.test(v)) errors.push(patternMismatch(path, f.pattern, v));
  }
  enumCheck(f, v, path, errors);
}

function arrayChecks(f: FieldSpec, v: unknown, path: string, errors: ValidationError[]): void {
  if (!Array.isArray(v)) {
    errors.push(typeError(path, "an array", v));
    return;
  }
  if (f.minItems !== undefined && f.minItems > 0 && v.length < f.minItems)
    errors.push(tooFewItems(path, v.length, f.minItems));
  if (f.maxItems !== undefined && v.length > f.maxItems) errors.push(tooManyItems(path, v.length, f.maxItems));
  if (f.uniqueItems) {
    const dup = firstDuplicate(v.filter((item) => item !== undefined));
    if (dup >= 0) errors.push(repeatedItem(path, dup));
  }
  v.forEach((item, i) => {
    checkField(f.item!, item, `${path}/${i}`, true, errors);
  });
  if (
    f.item?.valueType === "structure" &&
    v.length > 0 &&
    !v.some((item) => item === undefined || item instanceof InvalidJson) &&
    jsonTextLength(v) > Limits.maxStructureArrayJson
  ) {
    errors.push(structureArrayTooLong(path));
  }
  enumCheck(f, v, path, errors);
}

/** Enum membership under APS equality (docs/aps/resources.md, "Equality"), as the generated validators check it. */
function enumCheck(f: FieldSpec, v: unknown, path: string, errors: ValidationError[]): void {
  if (!f.options?.length || f.options.some((o) => apsEqual(o.value, v))) return;
  const listed = f.options.map((o) => jsonText(o.value)).join(", ");
  errors.push(notInEnum(path, v, listed.length > 200 ? `${listed.slice(0, 197)}...` : listed));
}

const patterns = new Map<string, RegExp | undefined>();

/** The declared pattern as the generated validators compile it: with the `u` flag when it allows one, else without. */
function patternOf(source: string): RegExp | undefined {
  if (!patterns.has(source)) {
    let re: RegExp | undefined;
    try {
      re = new RegExp(source, "u");
    } catch {
      try {
        re = new RegExp(source);
      } catch {
        // The compiler refuses such a declaration; if one gets here, the controller decides.
        re = undefined;
      }
    }
    patterns.set(source, re);
  }
  return patterns.get(source);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
