import { parseTree, type Node } from "jsonc-parser";
import { parseJsonTree } from "../load/json-tree.ts";
import { isInt64Text, isIntegerText, Limits } from "../../runtime/common/limits.ts";
import type { Literal, TypeRef } from "../model/model.ts";

/**
 * Whether a literal (`default`, an `enum` entry) has the JSON shape of a type. Works on the
 * literal's source text, not its parsed value, because only the text tells `1` from `1.0` and
 * keeps integers beyond 2^53 exact. Resource, self and opaque values cannot be judged from a
 * declaration and always fit; a structure only needs to be an object.
 * Returns the reason it does not fit, e.g. `"abc" is not an integer`, or undefined.
 */
export function literalTypeProblem(literal: Literal, ref: TypeRef): string | undefined {
  const root = literalTree(literal.raw);
  return root ? typeProblem(root, literal.raw, ref, "") : undefined;
}

/**
 * Whether a literal that fits its type stays within the APS limits (docs/aps/resources.md): integers in the signed 64-bit
 * range, strings at most 4000 characters. Returns the reason, or undefined.
 */
export function literalRangeProblem(literal: Literal, ref: TypeRef): string | undefined {
  const root = literalTree(literal.raw);
  return root ? rangeProblem(root, literal.raw, ref, "") : undefined;
}

/**
 * The tree of a literal's text. Literals are cut from declarations that parsed, so the quick
 * reader takes them; jsonc-parser's scanner and visitor, made anew for each of the thousands of
 * literals of a large package, allocated more than reading the declarations themselves.
 */
function literalTree(raw: string): Node | undefined {
  return parseJsonTree(raw) ?? parseTree(raw);
}

/** The article-and-name of what a type expects, for messages: `an integer`, `an array`. */
export function expectedValue(ref: TypeRef): string {
  switch (ref.kind) {
    case "primitive":
      return ref.name === "integer" || ref.name === "object"
        ? `an ${ref.name}`
        : ref.name === "long"
          ? "an integer"
          : `a ${ref.name}`;
    case "array":
      return "an array";
    case "structure":
      return `an object (structure ${ref.name})`;
    default:
      return "a value";
  }
}

function textOf(raw: string, node: Node): string {
  return raw.slice(node.offset, node.offset + node.length);
}

function shown(raw: string, node: Node): string {
  const text = textOf(raw, node).replace(/\s+/g, " ");
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function typeProblem(node: Node, raw: string, ref: TypeRef, where: string): string | undefined {
  const fail = () => `${where}${shown(raw, node)} is not ${expectedValue(ref)}`;
  switch (ref.kind) {
    case "primitive":
      switch (ref.name) {
        case "string":
          return node.type === "string" ? undefined : fail();
        case "integer":
        case "long":
          return node.type === "number" && isIntegerText(textOf(raw, node)) ? undefined : fail();
        case "number":
          return node.type === "number" ? undefined : fail();
        case "boolean":
          return node.type === "boolean" ? undefined : fail();
        case "object":
          return node.type === "object" ? undefined : fail();
      }
      return undefined;
    case "array": {
      if (node.type !== "array") return fail();
      const items = node.children ?? [];
      for (let i = 0; i < items.length; i++) {
        const problem = typeProblem(items[i]!, raw, ref.items, `${where}item ${i + 1}: `);
        if (problem) return problem;
      }
      return undefined;
    }
    case "structure":
      return node.type === "object" ? undefined : fail();
    default:
      return undefined;
  }
}

function rangeProblem(node: Node, raw: string, ref: TypeRef, where: string): string | undefined {
  if (ref.kind === "array") {
    const items = node.type === "array" ? (node.children ?? []) : [];
    for (let i = 0; i < items.length; i++) {
      const problem = rangeProblem(items[i]!, raw, ref.items, `${where}item ${i + 1}: `);
      if (problem) return problem;
    }
    return undefined;
  }
  if (ref.kind !== "primitive") return undefined;
  const text = textOf(raw, node);
  if (
    (ref.name === "integer" || ref.name === "long") &&
    node.type === "number" &&
    isIntegerText(text) &&
    !isInt64Text(text)
  ) {
    return `${where}${text} is outside the signed 64-bit range -9223372036854775808..9223372036854775807`;
  }
  if (ref.name === "string" && typeof node.value === "string" && node.value.length > Limits.maxStringLength) {
    return `${where}a string of ${node.value.length} characters is longer than the ${Limits.maxStringLength} a string property can hold`;
  }
  return undefined;
}
