/**
 * The Resource Query Language of APS list requests (docs/aps/rql.md): the query string of
 * `GET /aps/2/resources?...` parsed into a tree. Values stay text here; the controller converts
 * them by the declared type of the property they are compared with, and turns the tree into
 * parameterised SQL. Nothing in the tree is ever pasted into SQL as text.
 *
 * Grammar (top-level `&` and `,` both mean AND; `|` means OR inside parentheses):
 *
 *     query   := term (("&" | ",") term)*
 *     term    := call | name "=" op "=" value | "(" group ")"
 *     group   := term (("&" | "," | "|") term)*        (mixing `|` with `&`/`,` needs parentheses)
 *     call    := name "(" [arg ("," arg)*] ")"
 *     arg     := call | "(" [value ("," value)*] ")" | value
 *
 * Reserved characters inside values are percent-encoded; decoding happens after splitting, so
 * `%2C` is a comma inside a value and `%2A` a literal `*` in a `like` pattern.
 */

/** Comparison operators (call form `eq(a,1)` or FIQL form `a=eq=1`). */
type RqlComparison = "eq" | "ne" | "lt" | "gt" | "le" | "ge";

/** A filter node. Property names are dotted paths (`aps.status`, `address.city`). */
export type RqlFilter =
  | { readonly op: "and" | "or"; readonly args: readonly RqlFilter[] }
  | { readonly op: "not"; readonly arg: RqlFilter }
  | { readonly op: RqlComparison; readonly prop: string; readonly value: string }
  | { readonly op: "in" | "out"; readonly prop: string; readonly values: readonly string[] }
  /** `*` any text, `?` one character; `\0`-free literal text otherwise (see {@link likePattern}). */
  | { readonly op: "like"; readonly prop: string; readonly pattern: readonly LikePart[] }
  | { readonly op: "implementing" | "composing"; readonly typeId: string }
  | { readonly op: "linkedWith"; readonly id: string };

/** A piece of a `like` pattern: literal text or a wildcard. */
export type LikePart = { readonly text: string } | { readonly any: "many" | "one" };

/** A parsed list query. */
export interface RqlQuery {
  readonly filter?: RqlFilter;
  readonly sort: readonly { readonly prop: string; readonly descending: boolean }[];
  readonly select?: readonly string[];
  readonly limit?: { readonly start: number; readonly count?: number };
}

/** Malformed RQL, with the offset in the query string where it went wrong. */
export class RqlError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at character ${position + 1} of the query`);
    this.name = "RqlError";
  }
}

const COMPARISONS = new Set<string>(["eq", "ne", "lt", "gt", "le", "ge"]);
const RESERVED = new Set(["(", ")", ",", "&", "|", "="]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const MAX_DEPTH = 32;

/**
 * Longest query string accepted (characters, still percent-encoded). Node's HTTP server takes
 * request lines of about this size anyway; the bound keeps parsing and the SQL it becomes small.
 */
const MAX_RQL_LENGTH = 16 * 1024;

/** Most values in one `in(...)`/`out(...)` list. */
const MAX_RQL_LIST_VALUES = 1000;

/**
 * Most comparisons (eq, like, in, ...) in one query. Each one reads the property out of every
 * candidate row's body, so a query of a thousand `eq`s over large resources takes seconds of
 * database time (PGlite cannot be interrupted by a time-out); a list of values belongs in `in`.
 */
const MAX_RQL_COMPARISONS = 32;

/** Parses the raw query string (without `?`, still percent-encoded). Throws {@link RqlError}. */
export function parseRql(queryString: string): RqlQuery {
  if (queryString.length > MAX_RQL_LENGTH)
    throw new RqlError(
      `the query has ${queryString.length} characters, more than the ${MAX_RQL_LENGTH} accepted`,
      MAX_RQL_LENGTH,
    );
  return new RqlParser(queryString).parse();
}

interface RawCall {
  readonly kind: "call";
  readonly name: string;
  readonly args: readonly RawArg[];
  readonly at: number;
}
interface RawFiql {
  readonly kind: "fiql";
  readonly prop: string;
  readonly op: string;
  readonly value: string;
  readonly at: number;
}
interface RawGroup {
  readonly kind: "group";
  readonly op: "and" | "or";
  readonly terms: readonly RawTerm[];
  readonly at: number;
}
type RawTerm = RawCall | RawFiql | RawGroup;
type RawArg =
  | RawCall
  | RawFiql
  | { readonly kind: "list"; readonly values: readonly RawValue[]; readonly at: number }
  | RawValue;
interface RawValue {
  readonly kind: "value";
  /** Still percent-encoded. */
  readonly raw: string;
  readonly at: number;
}

class RqlParser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly text: string) {}

  parse(): RqlQuery {
    const terms: RawTerm[] = [];
    if (this.text.length > 0) {
      terms.push(this.term());
      while (this.pos < this.text.length) {
        const c = this.text[this.pos]!;
        if (c !== "&" && c !== ",")
          throw new RqlError(`expected "&" or "," between query terms, found "${c}"`, this.pos);
        this.pos++;
        // A trailing "&" (as some clients send) ends the query.
        if (this.pos === this.text.length) break;
        terms.push(this.term());
      }
    }
    return toQuery(terms);
  }

  private term(): RawTerm {
    const at = this.pos;
    if (this.peek() === "(") return this.group();
    const name = this.word();
    if (name === "")
      throw new RqlError(
        this.pos < this.text.length
          ? `unexpected "${this.text[this.pos]}"`
          : "the query ends where a term should start",
        this.pos,
      );
    if (this.peek() === "(") return this.call(name, at);
    if (this.peek() === "=") return this.fiql(name, at);
    throw new RqlError(
      `"${decode(name, at)}" is neither a call like eq(${decode(name, at)},value) nor a comparison like ${decode(name, at)}=eq=value`,
      at,
    );
  }

  private fiql(name: string, at: number): RawFiql {
    this.expect("=");
    const op = this.word();
    if (!COMPARISONS.has(op))
      throw new RqlError(`"${op}" is not a comparison; use eq, ne, lt, gt, le or ge as in ${name}=eq=value`, at);
    this.expect("=");
    return { kind: "fiql", prop: name, op, value: this.value().raw, at };
  }

  private group(): RawGroup {
    const at = this.pos;
    this.enter(at);
    this.expect("(");
    const terms = [this.term()];
    let op: "and" | "or" | undefined;
    while (this.peek() !== ")") {
      const c = this.peek();
      if (c === undefined) throw new RqlError('missing ")" for the "(" here', at);
      const next = c === "|" ? "or" : c === "&" || c === "," ? "and" : undefined;
      if (!next) throw new RqlError(`expected "|", "&", "," or ")", found "${c}"`, this.pos);
      if (op && op !== next)
        throw new RqlError(
          '"|" and "&"/"," are mixed in one group; add parentheses to say which binds first',
          this.pos,
        );
      op = next;
      this.pos++;
      terms.push(this.term());
    }
    this.pos++;
    this.depth--;
    return { kind: "group", op: op ?? "and", terms, at };
  }

  private call(name: string, at: number): RawCall {
    this.enter(at);
    this.expect("(");
    const args: RawArg[] = [];
    if (this.peek() !== ")") {
      args.push(this.arg());
      while (this.peek() === ",") {
        this.pos++;
        args.push(this.arg());
      }
    }
    if (this.peek() !== ")")
      throw new RqlError(
        this.peek() === undefined
          ? `missing ")" to close ${name}(`
          : `expected "," or ")" in ${name}(...), found "${this.peek()}"`,
        this.peek() === undefined ? at : this.pos,
      );
    this.pos++;
    this.depth--;
    return { kind: "call", name, args, at };
  }

  private arg(): RawArg {
    const at = this.pos;
    if (this.peek() === "(") {
      this.pos++;
      const values: RawValue[] = [];
      if (this.peek() !== ")") {
        values.push(this.value());
        while (this.peek() === ",") {
          this.pos++;
          values.push(this.value());
        }
      }
      if (this.peek() !== ")") throw new RqlError('missing ")" to close the list', at);
      this.pos++;
      return { kind: "list", values, at };
    }
    const word = this.word();
    if (this.peek() === "(" && NAME.test(word)) return this.call(word, at);
    // `and(a=eq=1,b=ge=2)`: a FIQL comparison as an argument.
    if (this.peek() === "=" && NAME.test(word)) return this.fiql(word, at);
    return { kind: "value", raw: word, at };
  }

  private value(): RawValue {
    const at = this.pos;
    return { kind: "value", raw: this.word(), at };
  }

  /** Text up to the next reserved character. */
  private word(): string {
    const start = this.pos;
    while (this.pos < this.text.length && !RESERVED.has(this.text[this.pos]!)) this.pos++;
    return this.text.slice(start, this.pos);
  }

  private peek(): string | undefined {
    return this.text[this.pos];
  }

  private expect(c: string): void {
    if (this.text[this.pos] !== c)
      throw new RqlError(
        this.pos < this.text.length
          ? `expected "${c}", found "${this.text[this.pos]}"`
          : `expected "${c}" but the query ends`,
        this.pos,
      );
    this.pos++;
  }

  private enter(at: number): void {
    if (++this.depth > MAX_DEPTH) throw new RqlError(`the query nests deeper than ${MAX_DEPTH} levels`, at);
  }
}

function toQuery(terms: readonly RawTerm[]): RqlQuery {
  const filters: RqlFilter[] = [];
  const sort: { prop: string; descending: boolean }[] = [];
  let select: string[] | undefined;
  let limit: { start: number; count?: number } | undefined;
  for (const t of terms) {
    if (t.kind === "call" && t.name === "sort") {
      for (const a of t.args) {
        const text = valueText(a, "sort");
        const descending = text.startsWith("-");
        const prop = text.replace(/^[+-]/, "");
        sort.push({ prop: propName(prop, a.at), descending });
      }
      continue;
    }
    if (t.kind === "call" && t.name === "select") {
      select = [...(select ?? []), ...t.args.map((a) => propName(valueText(a, "select"), a.at))];
      continue;
    }
    if (t.kind === "call" && t.name === "limit") {
      if (t.args.length < 1 || t.args.length > 2)
        throw new RqlError("limit takes (start) or (start,count), e.g. limit(0,10)", t.at);
      const [start, count] = t.args.map((a) => nonNegative(valueText(a, "limit"), a.at));
      limit = count === undefined ? { start: start! } : { start: start!, count };
      continue;
    }
    filters.push(toFilter(t));
  }
  const filter =
    filters.length === 0 ? undefined : filters.length === 1 ? filters[0] : { op: "and" as const, args: filters };
  const count = filter ? comparisons(filter) : 0;
  if (count > MAX_RQL_COMPARISONS)
    throw new RqlError(
      `the query has ${count} comparisons, more than the ${MAX_RQL_COMPARISONS} accepted; to match one of many values use in(name,(a,b,...))`,
      0,
    );
  return { sort, ...(filter ? { filter } : {}), ...(select ? { select } : {}), ...(limit ? { limit } : {}) };
}

/** Comparisons on property values in a filter (type and link tests use indexes, not bodies); recursion is bounded by MAX_DEPTH. */
function comparisons(f: RqlFilter): number {
  if (f.op === "and" || f.op === "or") return f.args.reduce((n, a) => n + comparisons(a), 0);
  if (f.op === "not") return comparisons(f.arg);
  return f.op === "implementing" || f.op === "composing" || f.op === "linkedWith" ? 0 : 1;
}

function toFilter(t: RawTerm | RawArg): RqlFilter {
  switch (t.kind) {
    case "fiql":
      return { op: t.op as RqlComparison, prop: propName(decode(t.prop, t.at), t.at), value: decode(t.value, t.at) };
    case "group":
      return { op: t.op, args: t.terms.map(toFilter) };
    case "call":
      return callFilter(t);
    default:
      throw new RqlError("expected a query term such as eq(prop,value)", t.at);
  }
}

function callFilter(t: RawCall): RqlFilter {
  const args = t.args;
  const arity = (n: number, example: string) => {
    if (args.length !== n)
      throw new RqlError(`${t.name} takes ${n} argument${n === 1 ? "" : "s"}, e.g. ${example}`, t.at);
  };
  if (COMPARISONS.has(t.name)) {
    arity(2, `${t.name}(name,value)`);
    return {
      op: t.name as RqlComparison,
      prop: propName(valueText(args[0]!, t.name), args[0]!.at),
      value: valueText(args[1]!, t.name),
    };
  }
  switch (t.name) {
    case "and":
    case "or":
      if (args.length === 0) throw new RqlError(`${t.name}() needs at least one query`, t.at);
      return { op: t.name, args: args.map(toFilter) };
    case "not":
      arity(1, "not(eq(name,value))");
      return { op: "not", arg: toFilter(args[0]!) };
    case "in":
    case "out": {
      arity(2, `${t.name}(name,(a,b))`);
      const list = args[1]!;
      if (list.kind === "list" && list.values.length > MAX_RQL_LIST_VALUES)
        throw new RqlError(
          `${t.name}(...) lists ${list.values.length} values, more than the ${MAX_RQL_LIST_VALUES} accepted`,
          list.at,
        );
      const values = list.kind === "list" ? list.values.map((v) => decode(v.raw, v.at)) : [valueText(list, t.name)];
      return { op: t.name, prop: propName(valueText(args[0]!, t.name), args[0]!.at), values };
    }
    case "like":
      arity(2, "like(name,Jo*)");
      return { op: "like", prop: propName(valueText(args[0]!, "like"), args[0]!.at), pattern: likePattern(args[1]!) };
    case "implementing":
    case "composing":
      arity(1, `${t.name}(http://example.com/types/thing/1.0)`);
      return { op: t.name, typeId: valueText(args[0]!, t.name) };
    case "linkedWith":
      arity(1, "linkedWith(<resource id>)");
      return { op: "linkedWith", id: valueText(args[0]!, t.name) };
    default:
      throw new RqlError(
        `unknown function "${t.name}"; supported: eq ne lt gt le ge in out like and or not implementing composing linkedWith sort select limit`,
        t.at,
      );
  }
}

/** `*` and `?` are wildcards unless percent-encoded (`%2A`, `%3F`), so they are split before decoding. */
function likePattern(arg: RawArg): LikePart[] {
  if (arg.kind !== "value") throw new RqlError("like needs a pattern, e.g. like(name,Jo*)", arg.at);
  const parts: LikePart[] = [];
  let literal = "";
  for (const c of arg.raw) {
    if (c === "*" || c === "?") {
      if (literal) parts.push({ text: decode(literal, arg.at) });
      literal = "";
      parts.push({ any: c === "*" ? "many" : "one" });
    } else literal += c;
  }
  if (literal) parts.push({ text: decode(literal, arg.at) });
  return parts;
}

function valueText(arg: RawArg, fn: string): string {
  if (arg.kind !== "value")
    throw new RqlError(`${fn} expects a plain value here, not a ${arg.kind === "list" ? "list" : "query"}`, arg.at);
  return decode(arg.raw, arg.at);
}

function propName(name: string, at: number): string {
  if (!NAME.test(name))
    throw new RqlError(`"${name}" is not a property name (letters, digits and _, dotted for nested fields)`, at);
  return name;
}

function nonNegative(text: string, at: number): number {
  if (!/^\d{1,9}$/.test(text)) throw new RqlError(`"${text}" is not a whole number from 0 to 999999999`, at);
  return Number(text);
}

function decode(raw: string, at: number): string {
  let text: string;
  try {
    text = decodeURIComponent(raw);
  } catch {
    throw new RqlError(`"${raw.slice(0, 100)}" has a malformed %-escape`, at);
  }
  // No stored text can hold U+0000 (PostgreSQL text and jsonb refuse it), so no value may either.
  if (text.includes("\0"))
    throw new RqlError(`"${raw.slice(0, 100)}" holds the character U+0000 (NUL), which no value can contain`, at);
  return text;
}
