import type { PhpClass, PhpNode, PhpProgram } from "./php-program.ts";
import { shortClassName } from "./php-program.ts";

/** A value PHP computes at compile time and `json_encode` can write. */
export type ConstantValue = string | number | boolean | null | ConstantValue[] | { [key: string]: ConstantValue };

/** Returned when an expression is not a compile-time constant aps-gen can work out. */
export const NOT_CONSTANT = Symbol("not constant");

/** Where names in a constant expression are looked up. */
export interface ConstantScope {
  readonly program: PhpProgram;
  /** The class whose initializer is read, for `self::X` and `static::X`. */
  readonly inClass?: PhpClass;
  /** Finds a class of the program by short name. */
  readonly classNamed: (name: string) => PhpClass | undefined;
}

/**
 * Evaluates an initializer or constant expression as PHP would at compile time: literals,
 * arrays, unary minus, string concatenation, `true`/`false`/`null`, global constants from
 * `define()`, and class constants (`self::X`, `Other::X`, inherited ones included).
 */
export function constantValue(node: PhpNode, scope: ConstantScope, depth = 0): ConstantValue | typeof NOT_CONSTANT {
  // A constant defined through itself would loop; PHP rejects it too.
  if (depth > 32) return NOT_CONSTANT;
  const again = (n: PhpNode, s: ConstantScope = scope) => constantValue(n, s, depth + 1);
  switch (node.kind) {
    case "number": {
      const raw = String(node.value).replace(/_/g, "");
      const n = /^0x/i.test(raw)
        ? parseInt(raw, 16)
        : /^0b/i.test(raw)
          ? parseInt(raw.slice(2), 2)
          : /^0[0-7]+$/.test(raw)
            ? parseInt(raw, 8)
            : Number(raw);
      return Number.isNaN(n) ? NOT_CONSTANT : n;
    }
    case "string":
      return String(node.value);
    case "boolean":
      return node.value === true;
    case "nullkeyword":
      return null;
    case "unary": {
      const v = again(node.what as PhpNode);
      if (typeof v !== "number") return NOT_CONSTANT;
      if (node.type === "-") return -v;
      if (node.type === "+") return v;
      return NOT_CONSTANT;
    }
    case "bin": {
      if (node.type !== ".") return NOT_CONSTANT;
      const l = again(node.left as PhpNode);
      const r = again(node.right as PhpNode);
      const text = (v: ConstantValue | typeof NOT_CONSTANT) =>
        typeof v === "string" || typeof v === "number"
          ? String(v)
          : typeof v === "boolean"
            ? v
              ? "1"
              : ""
            : v === null
              ? ""
              : undefined;
      const lt = text(l);
      const rt = text(r);
      return lt === undefined || rt === undefined ? NOT_CONSTANT : lt + rt;
    }
    case "array":
      return arrayValue(node, again);
    case "name": {
      const name = String(node.name).replace(/^\\/, "");
      const lower = name.toLowerCase();
      if (lower === "true") return true;
      if (lower === "false") return false;
      if (lower === "null") return null;
      const defined = scope.program.constants.get(name);
      return defined ? again(defined) : NOT_CONSTANT;
    }
    case "staticlookup": {
      const what = node.what as PhpNode;
      const offset = node.offset as PhpNode;
      if (offset.kind !== "identifier") return NOT_CONSTANT;
      const cls =
        what.kind === "selfreference" || what.kind === "staticreference"
          ? scope.inClass
          : what.kind === "name"
            ? scope.classNamed(shortClassName(String(what.name)))
            : undefined;
      return cls ? classConstant(cls, String(offset.name), scope, depth) : NOT_CONSTANT;
    }
    default:
      return NOT_CONSTANT;
  }
}

function classConstant(
  cls: PhpClass,
  name: string,
  scope: ConstantScope,
  depth: number,
): ConstantValue | typeof NOT_CONSTANT {
  for (let c: PhpClass | undefined = cls, hops = 0; c && hops < 32; hops++) {
    const expr = c.constants.get(name);
    if (expr) return constantValue(expr, { ...scope, inClass: c }, depth + 1);
    c = c.extendsName === undefined ? undefined : scope.classNamed(shortClassName(c.extendsName));
  }
  return NOT_CONSTANT;
}

function arrayValue(
  node: PhpNode,
  evaluate: (n: PhpNode) => ConstantValue | typeof NOT_CONSTANT,
): ConstantValue | typeof NOT_CONSTANT {
  const entries: [ConstantValue | undefined, ConstantValue][] = [];
  for (const item of (node.items as (PhpNode | null)[] | undefined) ?? []) {
    if (!item) return NOT_CONSTANT;
    const valueNode = item.kind === "entry" ? (item.value as PhpNode) : item;
    if (item.kind === "entry" && (item.unpack === true || item.byRef === true)) return NOT_CONSTANT;
    const value = evaluate(valueNode);
    if (value === NOT_CONSTANT) return NOT_CONSTANT;
    const keyNode = item.kind === "entry" ? (item.key as PhpNode | null) : null;
    let key: ConstantValue | undefined;
    if (keyNode) {
      const k = evaluate(keyNode);
      if (k === NOT_CONSTANT) return NOT_CONSTANT;
      key = k;
    }
    entries.push([key, value]);
  }
  // json_encode writes a PHP array as a JSON list only when its keys are exactly 0..n-1.
  const keys: string[] = [];
  let next = 0;
  for (const [k] of entries) {
    if (k === undefined || k === null) keys.push(String(next++));
    else {
      const text = typeof k === "boolean" ? (k ? "1" : "0") : String(k);
      keys.push(text);
      if (/^-?\d+$/.test(text) && Number(text) >= next) next = Number(text) + 1;
    }
  }
  const map = new Map<string, ConstantValue>();
  for (const [i, [, v]] of entries.entries()) map.set(keys[i]!, v);
  const isList = [...map.keys()].every((k, i) => k === String(i));
  if (isList) return [...map.values()];
  const obj: { [key: string]: ConstantValue } = {};
  for (const [k, v] of map) obj[k] = v;
  return obj;
}
