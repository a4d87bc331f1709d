import type { Literal, TypeRef } from "../../model/model.ts";
import { Limits } from "../../../runtime/common/limits.ts";
import type { CodeWriter } from "../core/code-writer.ts";
import { call, writeExpr, writeIf, type Expr } from "../core/layout.ts";
import type { ModuleScope } from "../core/module-scope.ts";
import { stringLiteral } from "../core/string-literal.ts";

/** The property attributes (docs/aps/resources.md) that constrain a value (a property's, or a parameter's type alone). */
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

/**
 * Statements that check the value held in `v` (a non-null, defined JS expression that is a plain
 * identifier) and push every problem onto `errors`, written to `w`. `path` is a JS expression for
 * the value's JSON pointer; it is evaluated only when an error is pushed, so valid input builds
 * no strings.
 */
export function valueCheck(spec: ValueSpec, v: string, path: string, scope: ModuleScope, w: CodeWriter): void {
  const rule = (name: string) => scope.runtime("validation-rules", name);
  const report = (builder: string, ...args: string[]) => push(call(rule(builder), path, ...args));
  const orEnum = (how: "scalar" | "numeric" | "deep") => {
    const e = enumCheck(spec, v, path, scope, how);
    if (e) writeIf(w, "else if", e.condition, e.statement);
  };
  const t = spec.type;
  switch (t.kind) {
    case "primitive":
      switch (t.name) {
        case "string": {
          writeIf(w, "if", `typeof ${v} !== "string"`, typeErr(scope, path, "a string", v));
          w.block(`else {`, () => stringChecks(spec, v, path, scope, w));
          break;
        }
        case "integer":
        case "long": {
          writeIf(w, "if", `!${rule("isInt64")}(${v})`, report("int64Error", v));
          orEnum("numeric");
          break;
        }
        case "number": {
          writeIf(w, "if", `typeof ${v} !== "number" && typeof ${v} !== "bigint"`, typeErr(scope, path, "a number", v));
          orEnum("numeric");
          break;
        }
        case "boolean": {
          writeIf(w, "if", `typeof ${v} !== "boolean"`, typeErr(scope, path, "true or false", v));
          orEnum("scalar");
          break;
        }
        case "object": {
          writeIf(
            w,
            "if",
            `typeof ${v} !== "object" || ${v} === null || Array.isArray(${v})`,
            typeErr(scope, path, "an object", v),
          );
          orEnum("deep");
          break;
        }
      }
      break;
    case "array": {
      writeIf(w, "if", `!Array.isArray(${v})`, typeErr(scope, path, "an array", v));
      w.block(`else {`, () => {
        if (spec.minItems !== undefined && spec.minItems > 0)
          writeIf(
            w,
            "if",
            `${v}.length < ${spec.minItems}`,
            report("tooFewItems", `${v}.length`, String(spec.minItems)),
          );
        if (spec.maxItems !== undefined)
          writeIf(
            w,
            "if",
            `${v}.length > ${spec.maxItems}`,
            report("tooManyItems", `${v}.length`, String(spec.maxItems)),
          );
        if (spec.uniqueItems) {
          w.line(`const dup = ${scope.runtime("aps-equality", "firstDuplicate")}(${v});`);
          writeIf(w, "if", "dup >= 0", report("repeatedItem", "dup"));
        }
        const item = `${v}Item`;
        const index = `${v}Index`;
        const itemPath = `${path} + "/" + ${index}`;
        w.block(`for (let ${index} = 0; ${index} < ${v}.length; ${index}++) {`, () => {
          w.line(`const ${item} = ${v}[${index}];`);
          if (t.items.kind === "opaque" || t.items.kind === "unresolved")
            writeIf(w, "if", `${item} === null`, typeErr(scope, itemPath, "a value", item));
          else valueCheck({ type: t.items }, item, itemPath, scope, w);
        });
        if (t.items.kind === "structure") {
          const length = scope.runtime("validation-error", "jsonTextLength");
          writeIf(
            w,
            "if",
            `${v}.length > 0 && ${length}(${v}) > ${Limits.maxStructureArrayJson}`,
            report("structureArrayTooLong"),
          );
        }
        const e = enumCheck(spec, v, path, scope, "deep");
        if (e) writeIf(w, "if", e.condition, e.statement);
      });
      break;
    }
    case "structure": {
      writeExpr(w, "", call(scope.structureChecker(t.typeId, t.name), v, path, "errors"), ";");
      break;
    }
    case "resource":
    case "self": {
      writeExpr(w, "", call(scope.runtime("link-ref", "checkLinkRef"), v, path, "errors"), ";");
      break;
    }
    case "opaque":
    case "unresolved":
      // A type outside the inputs: nothing is known about its values.
      break;
  }
}

/** `errors.push(error)`. */
export function push(error: Expr): Expr {
  return call("errors.push", error);
}

/** `typeError(path, "a string", v)` pushed; the message names what was found. */
function typeErr(scope: ModuleScope, path: string, expected: string, v: string): Expr {
  return push(call(scope.runtime("validation-error", "typeError"), path, stringLiteral(expected), v));
}

/**
 * Length checks count code points, as JSON Schema does. A string's UTF-16 length is an upper
 * bound of its code points and at most twice their number, so the count runs only near a bound.
 */
function stringChecks(spec: ValueSpec, v: string, path: string, scope: ModuleScope, w: CodeWriter): void {
  const cp = scope.runtime("validation-error", "codePointLength");
  const rule = (name: string) => scope.runtime("validation-rules", name);
  const limit = Limits.maxStringLength;
  const max = spec.maxLength !== undefined && spec.maxLength < limit ? spec.maxLength : limit;
  const tooLong = max < limit ? call(rule("tooLong"), path, v, String(max)) : call(rule("overStringLimit"), path, v);
  writeIf(w, "if", `${v}.length > ${max} && ${cp}(${v}) > ${max}`, push(tooLong));
  if (spec.minLength !== undefined && spec.minLength > 0) {
    // Fewer characters than UTF-16 units only with surrogate pairs: count only then.
    const surrogate = scope.runtime("validation-error", "HIGH_SURROGATE");
    const short = `${v}.length < ${spec.minLength} || (${v}.length < ${2 * spec.minLength} && ${surrogate}.test(${v}) && ${cp}(${v}) < ${spec.minLength})`;
    writeIf(w, "if", short, push(call(rule("tooShort"), path, v, String(spec.minLength))));
  }
  if (spec.pattern !== undefined) {
    const re = scope.pattern(spec.pattern);
    writeIf(w, "if", `!${re}.test(${v})`, push(call(rule("patternMismatch"), path, stringLiteral(spec.pattern), v)));
  }
  const e = enumCheck(spec, v, path, scope, "scalar");
  if (e) writeIf(w, "if", e.condition, e.statement);
}

/**
 * The enum check, with APS equality (docs/aps/resources.md), for a value whose JSON type already matched. Strings and booleans
 * are looked up in a set; numbers by their exact decimal text (so 1 and 1n are the same value);
 * arrays and objects by APS equality.
 */
function enumCheck(
  spec: ValueSpec,
  v: string,
  path: string,
  scope: ModuleScope,
  how: "scalar" | "numeric" | "deep",
): { condition: string; statement: Expr } | undefined {
  if (!spec.enum?.length) return undefined;
  const listed = spec.enum.map((l) => l.raw).join(", ");
  const statement = push(
    call(
      scope.runtime("validation-rules", "notInEnum"),
      path,
      v,
      stringLiteral(listed.length > 200 ? `${listed.slice(0, 197)}...` : listed),
    ),
  );
  if (how === "scalar") {
    const set = scope.constant(
      "ENUM",
      "new Set<unknown>(",
      spec.enum.map((l) => l.value),
      ")",
    );
    return { condition: `!${set}.has(${v})`, statement };
  }
  if (how === "numeric") {
    const set = scope.constant("ENUM", "new Set<string>(", spec.enum.map(numberKey), ")");
    return { condition: `!${set}.has(String(${v}))`, statement };
  }
  const list = scope.constant(
    "ENUM",
    "",
    spec.enum.map((l) => l.value),
    " as const",
  );
  const equal = scope.runtime("aps-equality", "apsEqual");
  return { condition: `!${list}.some((allowed) => ${equal}(allowed, ${v}))`, statement };
}

/** The decimal text `String(value)` gives for a literal's number, exact for 64-bit integers. */
function numberKey(l: Literal): string {
  if (/^-?\d+$/.test(l.raw)) return BigInt(l.raw).toString();
  return String(l.value);
}
