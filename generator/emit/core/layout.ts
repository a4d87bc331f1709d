import type { CodeWriter } from "./code-writer.ts";
import { textWidth } from "./text-width.ts";

/**
 * The expressions generated code is built from, so a line too long for the print width breaks
 * where Prettier would break it (see format-options.ts). Text is kept as written and never
 * broken (identifiers, literals, member accesses, templates); calls break their arguments (a last
 * object argument is hugged: `f(a, {` ... `})`), objects break into one entry a line, and an arrow
 * function moves its body to the next line. Lines that fit are written as one: the usual case,
 * and one string concatenation is all it costs.
 */
export type Expr = string | CallExpr | ObjectExpr | ArrowExpr;

/** `callee(args)`; `callee` may carry type arguments or a `!`, not a line break. */
export interface CallExpr {
  readonly callee: string;
  readonly args: readonly Expr[];
}

/** An object literal: `[key, value]` entries, or text written as it is (`...rest`, a shorthand `name`). */
export interface ObjectExpr {
  readonly entries: readonly ObjectEntry[];
}
export type ObjectEntry = string | readonly [key: string, value: Expr];

/** `params => body`, with `params` as written (`(ctx, body)`). */
export interface ArrowExpr {
  readonly params: string;
  readonly body: Expr;
}

export const call = (callee: string, ...args: Expr[]): CallExpr => ({ callee, args });
export const object = (...entries: ObjectEntry[]): ObjectExpr => ({ entries });
export const arrow = (params: string, body: Expr): ArrowExpr => ({ params, body });

/** The expression on one line. */
function flat(e: Expr): string {
  if (typeof e === "string") return e;
  if ("callee" in e) {
    let text = `${e.callee}(`;
    for (let i = 0; i < e.args.length; i++) text += i === 0 ? flat(e.args[i]!) : `, ${flat(e.args[i]!)}`;
    return `${text})`;
  }
  if ("entries" in e) {
    if (e.entries.length === 0) return "{}";
    let text = "{ ";
    for (let i = 0; i < e.entries.length; i++) {
      const x = e.entries[i]!;
      if (i > 0) text += ", ";
      text += typeof x === "string" ? x : `${x[0]}: ${flat(x[1])}`;
    }
    return `${text} }`;
  }
  return `${e.params} => ${flat(e.body)}`;
}

/** `prefix`, the expression and `suffix` (`;`, `,`), on as many lines as the width needs. */
export function writeExpr(w: CodeWriter, prefix: string, e: Expr, suffix: string): void {
  const line = `${prefix}${flat(e)}${suffix}`;
  if (typeof e === "string" || w.fits(line)) {
    w.line(line);
  } else if ("callee" in e) {
    writeCall(w, prefix, e, suffix, line);
  } else if ("entries" in e) {
    if (e.entries.length === 0) w.line(line);
    else w.block(`${prefix}{`, () => writeEntries(w, e.entries), `}${suffix}`);
  } else {
    w.line(`${prefix}${e.params} =>`);
    w.indented(() => writeExpr(w, "", e.body, suffix));
  }
}

/**
 * `head`, the items separated by commas, `tail` on one line; when that is too long, one item a
 * line with a trailing comma (function parameters, import and export lists, arguments).
 */
export function writeList(w: CodeWriter, head: string, items: readonly Expr[], tail: string): void {
  const line = `${head}${items.map(flat).join(", ")}${tail}`;
  if (items.length === 0 || w.fits(line)) {
    w.line(line);
    return;
  }
  w.block(
    head,
    () => {
      for (const item of items) writeExpr(w, "", item, ",");
    },
    tail,
  );
}

function writeCall(w: CodeWriter, prefix: string, e: CallExpr, suffix: string, line: string): void {
  const { args } = e;
  const last = args.at(-1);
  if (last === undefined) {
    w.line(line);
    return;
  }
  // Prettier hugs a last object argument when the line up to its `{` fits (and the argument
  // before it is not an object too).
  const before = args.at(-2);
  if (isObject(last) && last.entries.length > 0 && !(before !== undefined && isObject(before))) {
    const head = `${prefix}${e.callee}(${args
      .slice(0, -1)
      .map((a) => `${flat(a)}, `)
      .join("")}{`;
    if (w.fits(head)) {
      w.block(head, () => writeEntries(w, last.entries), `})${suffix}`);
      return;
    }
  }
  writeList(w, `${prefix}${e.callee}(`, args, `)${suffix}`);
}

/**
 * `lhs value;` (`export const X =`, `export type X =`) on one line, or with the value on the next
 * line when that is too long and the value cannot break itself (Prettier's break-after-operator).
 */
export function writeAssignment(w: CodeWriter, lhs: string, value: string, suffix = ";"): void {
  const line = `${lhs} ${value}${suffix}`;
  if (w.fits(line)) w.line(line);
  else w.line(lhs).indented(() => w.line(`${value}${suffix}`));
}

/**
 * `keyword (condition) statement;` for a statement that is not a block (`if`, `else if`, `for`):
 * on one line if it fits, else the statement one level deeper on the next line; a condition too
 * long for its own line breaks before each `&&` or `||` joining it, as Prettier prints it.
 */
export function writeIf(w: CodeWriter, keyword: string, condition: string, statement: Expr, suffix = ";"): void {
  const head = `${keyword} (${condition})`;
  const line = `${head} ${flat(statement)}${suffix}`;
  if (w.fits(line)) {
    w.line(line);
    return;
  }
  const operands = w.fits(head) ? [] : logicalOperands(condition);
  if (operands.length < 2) w.line(head);
  else w.block(`${keyword} (`, () => w.lines(operands), ")");
  w.indented(() => writeExpr(w, "", statement, suffix));
}

/**
 * `else statement;` (after `prefix`, `} ` when the if had a block): on one line if it fits, else
 * the statement one level deeper, laid out by `write` (a nested `for` or `if` clause).
 */
export function writeElse(
  w: CodeWriter,
  statement: Expr,
  prefix = "",
  write = () => writeExpr(w, "", statement, ";"),
): void {
  const line = `${prefix}else ${flat(statement)};`;
  if (w.fits(line)) w.line(line);
  else w.line(`${prefix}else`).indented(write);
}

/** `a && b && c` as `a &&`, `b &&`, `c` (or `||`); none when the operators are mixed at the top level. */
function logicalOperands(condition: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  let op: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < condition.length; i++) {
    const c = condition[i]!;
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'" || c === "`") quote = c;
    else if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    else if (depth === 0 && (condition.startsWith(" && ", i) || condition.startsWith(" || ", i))) {
      const found = condition.slice(i + 1, i + 3);
      if (op !== undefined && op !== found) return [];
      op = found;
      parts.push(`${condition.slice(start, i)} ${found}`);
      start = i + 4;
      i += 3;
    }
  }
  parts.push(condition.slice(start));
  return parts;
}

/** `lhs` and a union type, one member a line (`| "a"`) when it does not fit on one. */
export function writeUnion(w: CodeWriter, lhs: string, members: readonly string[], suffix = ";"): void {
  const line = `${lhs} ${members.join(" | ")}${suffix}`;
  if (members.length < 2 || w.fits(line)) writeAssignment(w, lhs, members.join(" | "), suffix);
  else
    w.line(lhs).indented(() => {
      for (const [i, m] of members.entries()) w.line(`| ${m}${i === members.length - 1 ? suffix : ""}`);
    });
}

function writeEntries(w: CodeWriter, entries: readonly ObjectEntry[]): void {
  for (const entry of entries) {
    if (typeof entry === "string") w.line(`${entry},`);
    else writeProperty(w, entry[0], entry[1]);
  }
}

/** One `key: value,` of an object written one entry a line. */
export function writeProperty(w: CodeWriter, key: string, value: Expr): void {
  const line = `${key}: ${flat(value)},`;
  if (w.fits(line)) w.line(line);
  else if (typeof value === "string") {
    // Text that cannot break moves below its key, unless the key is short (under 5 columns) or
    // the text is a template literal, a positive number or a boolean: Prettier's assignment layouts.
    if (textWidth(key) < 5 || /^`|^(true|false)$|^\d[\d._e+-]*$/.test(value)) w.line(line);
    else w.line(`${key}:`).indented(() => w.line(`${value},`));
  } else if (w.fits(`${key}: ${opening(value)}`)) writeExpr(w, `${key}: `, value, ",");
  else w.line(`${key}:`).indented(() => writeExpr(w, "", value, ","));
}

/** The start of an expression up to where it can first break. */
function opening(e: Exclude<Expr, string>): string {
  if ("callee" in e) return e.args.length ? `${e.callee}(` : `${e.callee}()`;
  if ("entries" in e) return "{";
  return `${e.params} =>`;
}

function isObject(e: Expr): e is ObjectExpr {
  return typeof e !== "string" && "entries" in e;
}
