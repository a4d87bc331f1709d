import { PRINT_WIDTH } from "./format-options.ts";
import { propertyKey } from "./naming.ts";
import { stringLiteral } from "./string-literal.ts";
import { textWidth } from "./text-width.ts";

/**
 * A JSON value (bigints allowed) as a TypeScript expression in the layout Prettier prints for it
 * (format-options.ts): every non-empty object one entry a line (Prettier keeps an object broken
 * that is written broken), keys unquoted where they may be, arrays of plain values on one line
 * when they fit, else one item a line (numbers filled), trailing commas. What JSON.stringify
 * leaves out (undefined, functions) is left out here too.
 *
 * `head` is the text before the value on its first line (`export const x = `), `tail` the text
 * after its last (`;`), `depth` the indentation of the first line; the result ends with a newline.
 */
export function jsonLiteral(head: string, value: unknown, tail: string, depth = 0): string {
  const out: string[] = [];
  writeValue(out, depth, head, value, tail, false);
  return out.join("");
}

const INDENTS: string[] = [""];
function indent(depth: number): string {
  while (INDENTS.length <= depth) INDENTS.push(`${INDENTS[INDENTS.length - 1]!}  `);
  return INDENTS[depth]!;
}

const keys = new Map<string, string>();
function keyText(name: string): string {
  let key = keys.get(name);
  if (key === undefined) keys.set(name, (key = propertyKey(name)));
  return key;
}

function present(value: unknown): boolean {
  return value !== undefined && typeof value !== "function" && typeof value !== "symbol";
}

/** A plain value's literal, or undefined for an array or object. */
function scalar(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return stringLiteral(value);
    case "number":
      // JSON's form (NaN and the infinities are null), without the exponent's plus sign.
      return Number.isFinite(value) ? String(value).replace("e+", "e") : "null";
    case "bigint":
      return `${value}n`;
    case "boolean":
      return value ? "true" : "false";
    default:
      return value === null || !present(value) ? "null" : undefined;
  }
}

/** The value on one line, or undefined when Prettier would never print it on one. */
function flat(value: unknown): string | undefined {
  const s = scalar(value);
  if (s !== undefined) return s;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    // Two or more arrays of two or more items always break, one a line (a matrix).
    if (value.length > 1 && value.every((v) => Array.isArray(v) && v.length > 1)) return undefined;
    const items: string[] = [];
    for (const v of value) {
      const f = flat(v);
      if (f === undefined) return undefined;
      items.push(f);
    }
    return `[${items.join(", ")}]`;
  }
  for (const k in value as Record<string, unknown>) if (present((value as Record<string, unknown>)[k])) return undefined;
  return "{}";
}

/**
 * Lines for `head value tail` at `depth`. `keyed`: `head` is an object key (`name: `), whose
 * plain value moves to the next line when too long (unless the key is short).
 */
function writeValue(out: string[], depth: number, head: string, value: unknown, tail: string, keyed: boolean): void {
  const pad = indent(depth);
  const s = scalar(value);
  if (s !== undefined) {
    // A positive number or a boolean stays after its key, however long (Prettier's assignment layouts).
    writeScalar(out, depth, head, s, tail, keyed && typeof value !== "boolean" && !(typeof value === "number" && s.charCodeAt(0) !== 45));
    return;
  }
  if (Array.isArray(value)) {
    const f = flat(value);
    if (f !== undefined && depth * 2 + textWidth(head) + textWidth(f) + tail.length <= PRINT_WIDTH) {
      out.push(pad, head, f, tail, "\n");
      return;
    }
    if (value.length === 0) {
      writeScalar(out, depth, head, "[]", tail, keyed);
      return;
    }
    out.push(pad, head, "[\n");
    if (value.length > 1 && value.every((v) => typeof v === "number")) fillNumbers(out, depth + 1, value as number[]);
    else for (const v of value) writeValue(out, depth + 1, "", present(v) ? v : null, ",", false);
    out.push(pad, "]", tail, "\n");
    return;
  }
  const object = value as Record<string, unknown>;
  let empty = true;
  for (const k in object) {
    const v = object[k];
    if (!present(v)) continue;
    if (empty) out.push(pad, head, "{\n");
    empty = false;
    writeValue(out, depth + 1, `${keyText(k)}: `, v, ",", true);
  }
  if (empty) writeScalar(out, depth, head, "{}", tail, keyed);
  else out.push(pad, "}", tail, "\n");
}

/**
 * `head text tail` on one line; `breakable`: after a key of 5 columns or more, text too long for
 * the line moves to the next one.
 */
function writeScalar(out: string[], depth: number, head: string, text: string, tail: string, breakable: boolean): void {
  const pad = indent(depth);
  if (breakable && depth * 2 + textWidth(head) + textWidth(text) + tail.length > PRINT_WIDTH && textWidth(head) >= 7) {
    out.push(pad, head.slice(0, -1), "\n", indent(depth + 1), text, tail, "\n");
  } else out.push(pad, head, text, tail, "\n");
}

/** Numbers as Prettier fills them: as many to a line, each with its comma, as fit. */
function fillNumbers(out: string[], depth: number, numbers: readonly number[]): void {
  const pad = indent(depth);
  let column = 0;
  for (const n of numbers) {
    const text = `${scalar(n)!},`;
    if (column === 0) {
      out.push(pad, text);
      column = pad.length + text.length;
    } else if (column + 1 + text.length <= PRINT_WIDTH) {
      out.push(" ", text);
      column += 1 + text.length;
    } else {
      out.push("\n", pad, text);
      column = pad.length + text.length;
    }
  }
  out.push("\n");
}
