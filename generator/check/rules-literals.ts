import { isInt64Text, Limits } from "../../runtime/common/limits.ts";
import type { ApsModel, Literal, TypeRef } from "../model/model.ts";

/** A literal that breaks a rule: which rule, and what to say about it. */
export interface LiteralProblem {
  readonly kind: "type" | "range";
  readonly message: string;
}

/**
 * Why a `default` or `enum` literal does not fit a property type, or undefined when it does.
 * Values of resource, opaque and self types cannot be judged statically and always pass.
 */
export function literalProblem(literal: Literal, ref: TypeRef, model: ApsModel): LiteralProblem | undefined {
  return valueProblem(literal.value, literal.raw, ref, model);
}

function valueProblem(value: unknown, raw: string | undefined, ref: TypeRef, model: ApsModel): LiteralProblem | undefined {
  const shown = raw ?? JSON.stringify(value);
  switch (ref.kind) {
    case "primitive":
      switch (ref.name) {
        case "string":
          if (typeof value !== "string") return { kind: "type", message: `${shown} is not a string` };
          if (value.length > Limits.maxStringLength) return { kind: "range", message: `a string of ${value.length} characters exceeds the limit of ${Limits.maxStringLength}` };
          return undefined;
        case "integer":
        case "long": {
          const text = raw ?? (typeof value === "number" ? String(value) : "");
          if (typeof value !== "number" || !/^-?\d+$/.test(text)) return { kind: "type", message: `${shown} is not an integer` };
          if (!isInt64Text(text)) return { kind: "range", message: `${text} is outside the signed 64-bit range (-9223372036854775808 to 9223372036854775807)` };
          return undefined;
        }
        case "number":
          return typeof value === "number" ? undefined : { kind: "type", message: `${shown} is not a number` };
        case "boolean":
          return typeof value === "boolean" ? undefined : { kind: "type", message: `${shown} is not a boolean` };
        case "object":
          return isPlainObject(value) ? undefined : { kind: "type", message: `${shown} is not an object` };
      }
      return undefined;
    case "array": {
      if (!Array.isArray(value)) return { kind: "type", message: `${shown} is not an array` };
      for (const [i, item] of value.entries()) {
        const p = valueProblem(item, undefined, ref.items, model);
        if (p) return { kind: p.kind, message: `item ${i}: ${p.message}` };
      }
      return undefined;
    }
    case "structure": {
      if (!isPlainObject(value)) return { kind: "type", message: `${shown} is not an object (structure ${ref.name})` };
      const structure = model.types.get(ref.typeId)?.decl.structures.get(ref.name);
      if (!structure) return undefined;
      for (const [key, v] of Object.entries(value)) {
        const p = structure.properties.get(key);
        if (!p) return { kind: "type", message: `structure ${ref.name} has no property "${key}"` };
        const problem = valueProblem(v, undefined, p.type, model);
        if (problem) return { kind: problem.kind, message: `${key}: ${problem.message}` };
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
