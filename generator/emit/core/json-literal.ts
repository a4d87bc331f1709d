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
  const printer = new Printer();
  printer.value(depth, head, value, tail, false);
  return printer.text();
}

/** Lines joined into one string this many at a time (see CodeWriter: joined young, they die young). */
const CHUNK = 4096;

const INDENTS: string[] = [""];
function indent(depth: number): string {
  while (INDENTS.length <= depth) INDENTS.push(`${INDENTS[INDENTS.length - 1]!}  `);
  return INDENTS[depth]!;
}

const keys = new Map<string, string>();
function keyText(name: string): string {
  let key = keys.get(name);
  if (key === undefined) keys.set(name, (key = `${propertyKey(name)}: `));
  return key;
}

/** Left out of objects, as JSON.stringify leaves it out. */
function absent(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/** A plain value's literal, or undefined for an array or object. */
function scalar(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return value.indexOf('"') === -1 ? JSON.stringify(value) : stringLiteral(value);
    case "number":
      // JSON's form (NaN and the infinities are null), without the exponent's plus sign.
      return Number.isFinite(value) ? String(value).replace("e+", "e") : "null";
    case "bigint":
      return `${value}n`;
    case "boolean":
      return value ? "true" : "false";
    default:
      return value === null || absent(value) ? "null" : undefined;
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
    let text = "[";
    for (let i = 0; i < value.length; i++) {
      const f = flat(value[i]);
      if (f === undefined) return undefined;
      text += i === 0 ? f : `, ${f}`;
    }
    return `${text}]`;
  }
  for (const k in value as Record<string, unknown>)
    if (!absent((value as Record<string, unknown>)[k])) return undefined;
  return "{}";
}

/** Whether `depth` levels of indentation and `a b c` fit on one line; a character is at most two columns wide, so a short line needs no count. */
function fits(depth: number, a: string, b: string, c: string): boolean {
  if (depth * 2 + 2 * (a.length + b.length + c.length) <= PRINT_WIDTH) return true;
  return depth * 2 + textWidth(a) + textWidth(b) + textWidth(c) <= PRINT_WIDTH;
}

class Printer {
  private readonly chunks: string[] = [];
  private readonly lines: string[] = [];

  /** Every line, each ending with a newline. */
  text(): string {
    this.lines.push("");
    this.chunks.push(this.lines.join("\n"));
    return this.chunks.length === 1 ? this.chunks[0]! : this.chunks.join("\n");
  }

  private add(line: string): void {
    this.lines.push(line);
    if (this.lines.length >= CHUNK) {
      this.chunks.push(this.lines.join("\n"));
      this.lines.length = 0;
    }
  }

  /**
   * Lines for `head value tail` at `depth`. `keyed`: `head` is an object key (`name: `), whose
   * plain value moves to the next line when too long (unless the key is short).
   */
  value(depth: number, head: string, value: unknown, tail: string, keyed: boolean): void {
    const s = typeof value === "string" ? this.string(value) : scalar(value);
    if (s !== undefined) {
      // A positive number or a boolean stays after its key, however long (Prettier's assignment layouts).
      this.scalar(
        depth,
        head,
        s,
        tail,
        keyed && typeof value !== "boolean" && !(typeof value === "number" && s.charCodeAt(0) !== 45),
      );
    } else if (Array.isArray(value)) this.array(depth, head, value, tail, keyed);
    else this.object(depth, head, value as Record<string, unknown>, tail, keyed);
  }

  /** Documents repeat their strings (types, references, descriptions): each is quoted once. */
  private readonly strings = new Map<string, string>();
  private string(value: string): string {
    let literal = this.strings.get(value);
    if (literal === undefined) this.strings.set(value, (literal = scalar(value)!));
    return literal;
  }

  /**
   * `head text tail` on one line; `breakable`: after a key of 5 columns or more, text too long for
   * the line moves to the next one.
   */
  private scalar(depth: number, head: string, text: string, tail: string, breakable: boolean): void {
    const pad = indent(depth);
    if (breakable && !fits(depth, head, text, tail) && textWidth(head) >= 7) {
      this.add(pad + head.slice(0, -1));
      this.add(indent(depth + 1) + text + tail);
    } else this.add(pad + head + text + tail);
  }

  private array(depth: number, head: string, value: readonly unknown[], tail: string, keyed: boolean): void {
    if (value.length === 0) {
      this.scalar(depth, head, "[]", tail, keyed);
      return;
    }
    const f = flat(value);
    const pad = indent(depth);
    if (f !== undefined && fits(depth, head, f, tail)) {
      this.add(pad + head + f + tail);
      return;
    }
    this.add(`${pad}${head}[`);
    if (value.length > 1 && value.every((v) => typeof v === "number")) this.fillNumbers(depth + 1, value as number[]);
    else for (const v of value) this.value(depth + 1, "", absent(v) ? null : v, ",", false);
    this.add(`${pad}]${tail}`);
  }

  private object(depth: number, head: string, object: Record<string, unknown>, tail: string, keyed: boolean): void {
    let empty = true;
    for (const k in object) {
      const v = object[k];
      if (absent(v)) continue;
      if (empty) this.add(`${indent(depth)}${head}{`);
      empty = false;
      this.value(depth + 1, keyText(k), v, ",", true);
    }
    if (empty) this.scalar(depth, head, "{}", tail, keyed);
    else this.add(`${indent(depth)}}${tail}`);
  }

  /** Numbers as Prettier fills them: as many to a line, each with its comma, as fit. */
  private fillNumbers(depth: number, numbers: readonly number[]): void {
    const pad = indent(depth);
    let line = "";
    for (const n of numbers) {
      const text = `${scalar(n)!},`;
      if (line === "") line = pad + text;
      else if (line.length + 1 + text.length <= PRINT_WIDTH) line += ` ${text}`;
      else {
        this.add(line);
        line = pad + text;
      }
    }
    this.add(line);
  }
}
