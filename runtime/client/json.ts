/**
 * JSON for the client without losing 64-bit integers (docs/aps/resources.md, "Limits"), with no
 * library: the emitted types say `Int64 = number | bigint`, and `JSON.parse` would round
 * 9223372036854775807.
 */

/**
 * An integer literal of 16 or more digits outside a string: the only kind `JSON.parse` may
 * round. Strings are matched too (first alternative) so that digits inside them are skipped.
 */
const LONG_INTEGER = /"(?:[^"\\]|\\.)*"|(?<![\d.eE+-])-?\d{16,}(?![\d.eE])/g;
/** Stands for a big integer inside a string while JSON.parse or JSON.stringify runs; random, so no real string is taken for one. */
const MARK = `\u0000int${Math.random().toString(36).slice(2)}:`;
const MARK_IN_JSON = `\\u0000${MARK.slice(1)}`;
const MARKED_IN_JSON = new RegExp(`"${MARK_IN_JSON.replace(/\\/g, "\\\\")}(-?\\d+)"`, "g");

/** Parses JSON text; integers beyond ±(2^53 − 1) become `bigint`, everything else is as `JSON.parse` gives it. */
export function parseJson(text: string): unknown {
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  let marked = false;
  const safe = text.replace(LONG_INTEGER, (m) => {
    if (m.startsWith('"') || Number.isSafeInteger(Number(m))) return m;
    marked = true;
    return `"${MARK_IN_JSON}${m}"`;
  });
  if (!marked) return JSON.parse(text);
  return JSON.parse(safe, (_key, value: unknown) =>
    typeof value === "string" && value.startsWith(MARK) ? BigInt(value.slice(MARK.length)) : value,
  );
}

/** JSON text in which bigints are written as exact integers; `space` indents it as JSON.stringify does. */
export function jsonText(value: unknown, space?: number): string {
  let big = false;
  const text = JSON.stringify(
    value,
    (_k, v: unknown) => {
      if (typeof v !== "bigint") return v;
      big = true;
      return `${MARK}${v}`;
    },
    space,
  );
  return big ? text.replace(MARKED_IN_JSON, "$1") : text;
}
