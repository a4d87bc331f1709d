import type { Literal, Property, TypeRef } from "../../model/model.ts";
import { Limits } from "../../../runtime/common/limits.ts";
import type { CodeWriter } from "../core/code-writer.ts";
import type { ModuleScope } from "../core/module-scope.ts";

/** The attributes of SPEC 2.2 that constrain a value (a property's, or a parameter's type alone). */
export interface ValueSpec {
  readonly type: TypeRef;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  readonly enum?: readonly Literal[];
}

/** The value spec of a property. */
export function propertySpec(p: Property): ValueSpec {
  return p;
}

/**
 * Statements that check the value held in `v` (a non-null, defined JS expression that is a plain
 * identifier) and push every problem onto `errors`, written to `w`. `path` is a JS expression for
 * the value's JSON pointer; it is evaluated only when an error is pushed, so valid input builds
 * no strings.
 */
export function valueCheck(spec: ValueSpec, v: string, path: string, scope: ModuleScope, w: CodeWriter): void {
  const push = (code: string) => w.line(code);
  const rule = (name: string) => scope.runtime("validation-rules", name);
  const report = (builder: string, ...args: string[]) => `errors.push(${rule(builder)}(${[path, ...args].join(", ")}));`;
  const t = spec.type;
  switch (t.kind) {
    case "primitive":
      switch (t.name) {
        case "string": {
          push(`if (typeof ${v} !== "string") ${typeErr(scope, path, "a string", v)}`);
          w.block(`else {`, () => w.lines(stringChecks(spec, v, path, scope)));
          break;
        }
        case "integer":
        case "long": {
          push(`if (!${rule("isInt64")}(${v})) ${report("int64Error", v)}`);
          const e = enumCheck(spec, v, path, scope, "numeric");
          if (e) push(`else ${e}`);
          break;
        }
        case "number": {
          push(`if (typeof ${v} !== "number" && typeof ${v} !== "bigint") ${typeErr(scope, path, "a number", v)}`);
          const e = enumCheck(spec, v, path, scope, "numeric");
          if (e) push(`else ${e}`);
          break;
        }
        case "boolean": {
          push(`if (typeof ${v} !== "boolean") ${typeErr(scope, path, "true or false", v)}`);
          const e = enumCheck(spec, v, path, scope, "scalar");
          if (e) push(`else ${e}`);
          break;
        }
        case "object": {
          push(`if (typeof ${v} !== "object" || ${v} === null || Array.isArray(${v})) ${typeErr(scope, path, "an object", v)}`);
          const e = enumCheck(spec, v, path, scope, "deep");
          if (e) push(`else ${e}`);
          break;
        }
      }
      break;
    case "array": {
      push(`if (!Array.isArray(${v})) ${typeErr(scope, path, "an array", v)}`);
      w.block(`else {`, () => {
        if (spec.minItems !== undefined && spec.minItems > 0) push(`if (${v}.length < ${spec.minItems}) ${report("tooFewItems", `${v}.length`, String(spec.minItems))}`);
        if (spec.maxItems !== undefined) push(`if (${v}.length > ${spec.maxItems}) ${report("tooManyItems", `${v}.length`, String(spec.maxItems))}`);
        if (spec.uniqueItems) {
          const dup = scope.runtime("aps-equality", "firstDuplicate");
          push(`const dup = ${dup}(${v});`);
          push(`if (dup >= 0) ${report("repeatedItem", "dup")}`);
        }
        const item = `${v}Item`;
        const index = `${v}Index`;
        const itemPath = `${path} + "/" + ${index}`;
        w.block(`for (let ${index} = 0; ${index} < ${v}.length; ${index}++) {`, () => {
          push(`const ${item} = ${v}[${index}];`);
          if (t.items.kind === "opaque" || t.items.kind === "unresolved") push(`if (${item} === null) ${typeErr(scope, itemPath, "a value", item)}`);
          else valueCheck({ type: t.items }, item, itemPath, scope, w);
        });
        if (t.items.kind === "structure") {
          const length = scope.runtime("validation-error", "jsonTextLength");
          push(`if (${v}.length > 0 && ${length}(${v}) > ${Limits.maxStructureArrayJson}) ${report("structureArrayTooLong")}`);
        }
        const e = enumCheck(spec, v, path, scope, "deep");
        if (e) push(e);
      });
      break;
    }
    case "structure": {
      push(`${scope.structureChecker(t.typeId, t.name)}(${v}, ${path}, errors);`);
      break;
    }
    case "resource":
    case "self": {
      push(`${scope.runtime("link-ref", "checkLinkRef")}(${v}, ${path}, errors);`);
      break;
    }
    case "opaque":
    case "unresolved":
      // A type outside the inputs: nothing is known about its values.
      break;
  }
}

/** `typeError(path, "a string", v)` pushed; the message names what was found. */
function typeErr(scope: ModuleScope, path: string, expected: string, v: string): string {
  return `errors.push(${scope.runtime("validation-error", "typeError")}(${path}, ${JSON.stringify(expected)}, ${v}));`;
}

/**
 * Length checks count code points, as JSON Schema does. A string's UTF-16 length is an upper
 * bound of its code points and at most twice their number, so the count runs only near a bound.
 */
function stringChecks(spec: ValueSpec, v: string, path: string, scope: ModuleScope): string[] {
  const out: string[] = [];
  const cp = scope.runtime("validation-error", "codePointLength");
  const rule = (name: string) => scope.runtime("validation-rules", name);
  const limit = Limits.maxStringLength;
  const max = spec.maxLength !== undefined && spec.maxLength < limit ? spec.maxLength : limit;
  const tooLong = max < limit ? `${rule("tooLong")}(${path}, ${v}, ${max})` : `${rule("overStringLimit")}(${path}, ${v})`;
  out.push(`if (${v}.length > ${max} && ${cp}(${v}) > ${max}) errors.push(${tooLong});`);
  if (spec.minLength !== undefined && spec.minLength > 0) {
    // Fewer characters than UTF-16 units only with surrogate pairs: count only then.
    const surrogate = scope.runtime("validation-error", "HIGH_SURROGATE");
    const short = `${v}.length < ${spec.minLength} || (${v}.length < ${2 * spec.minLength} && ${surrogate}.test(${v}) && ${cp}(${v}) < ${spec.minLength})`;
    out.push(`if (${short}) errors.push(${rule("tooShort")}(${path}, ${v}, ${spec.minLength}));`);
  }
  if (spec.pattern !== undefined) {
    const re = scope.pattern(spec.pattern);
    out.push(`if (!${re}.test(${v})) errors.push(${rule("patternMismatch")}(${path}, ${JSON.stringify(spec.pattern)}, ${v}));`);
  }
  const e = enumCheck(spec, v, path, scope, "scalar");
  if (e) out.push(e);
  return out;
}

/**
 * The enum check of SPEC 2.6 for a value whose JSON type already matched. Strings and booleans
 * are looked up in a set; numbers by their exact decimal text (so 1 and 1n are the same value);
 * arrays and objects by APS equality.
 */
function enumCheck(spec: ValueSpec, v: string, path: string, scope: ModuleScope, how: "scalar" | "numeric" | "deep"): string | undefined {
  if (!spec.enum?.length) return undefined;
  const listed = spec.enum.map((l) => l.raw).join(", ");
  const report = `errors.push(${scope.runtime("validation-rules", "notInEnum")}(${path}, ${v}, ${JSON.stringify(listed.length > 200 ? `${listed.slice(0, 197)}...` : listed)}));`;
  if (how === "scalar") {
    const set = scope.constant("ENUM", `new Set<unknown>([${spec.enum.map((l) => JSON.stringify(l.value)).join(", ")}])`);
    return `if (!${set}.has(${v})) ${report}`;
  }
  if (how === "numeric") {
    const set = scope.constant("ENUM", `new Set<string>([${spec.enum.map((l) => JSON.stringify(numberKey(l))).join(", ")}])`);
    return `if (!${set}.has(String(${v}))) ${report}`;
  }
  const list = scope.constant("ENUM", `[${spec.enum.map((l) => JSON.stringify(l.value)).join(", ")}] as const`);
  const equal = scope.runtime("aps-equality", "apsEqual");
  return `if (!${list}.some((allowed) => ${equal}(allowed, ${v}))) ${report}`;
}

/** The decimal text `String(value)` gives for a literal's number, exact for 64-bit integers. */
function numberKey(l: Literal): string {
  if (/^-?\d+$/.test(l.raw)) return BigInt(l.raw).toString();
  return String(l.value);
}
