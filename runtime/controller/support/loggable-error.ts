/**
 * What the log may say about an unexpected error. Errors of the database layer carry the data
 * of the statement that failed: drizzle's DrizzleQueryError says `Failed query: <sql> params:
 * <every parameter>` in its message (and so in its stack), and a parameter may be a whole
 * resource body; PostgreSQL's own messages and details quote the offending input (`invalid
 * input syntax for type uuid: "..."`, `Key (id)=(...) already exists`). None of that may reach
 * the log, so only names, SQLSTATE codes, schema names and stack frames are kept, and quoted
 * text in a message is masked.
 */

/** A summary of `error` that never holds a request body, a statement's parameters or a quoted value. */
export interface LoggableError {
  readonly name: string;
  readonly message: string;
  /** SQLSTATE of a database error (e.g. 22P05), when there is one. */
  readonly code?: string;
  readonly table?: string;
  readonly column?: string;
  readonly constraint?: string;
  /** The `at ...` lines of the stack, without the message it starts with. */
  readonly stack?: string;
  readonly cause?: LoggableError;
}

/** Messages that name a failed statement: they are replaced whole (they quote the statement and its parameters). */
const QUERY_MESSAGE = /^Failed query:|\bparams:/;

/** Summarises `error` for the log (see the module comment for what is left out and why). */
export function loggableError(error: unknown, depth = 0): LoggableError {
  if (!(error instanceof Error)) return { name: typeof error, message: "(a thrown value that is not an Error)" };
  const e = error as Error & Record<string, unknown>;
  const code = typeof e.code === "string" ? e.code : undefined;
  const fromDatabase = code !== undefined && /^[0-9A-Z]{5}$/.test(code);
  // Other messages may quote input too (JSON.parse quotes the text it failed on): masked alike.
  const message = QUERY_MESSAGE.test(e.message)
    ? "a database statement failed (its text and parameters are not logged)"
    : maskQuoted(e.message.split("\n")[0]!.slice(0, 300));
  const text = (key: string, ...alternatives: string[]) =>
    [key, ...alternatives].map((k) => e[k]).find((v): v is string => typeof v === "string");
  const table = fromDatabase ? text("table", "table_name") : undefined;
  const column = fromDatabase ? text("column", "column_name") : undefined;
  const constraint = fromDatabase ? text("constraint", "constraint_name") : undefined;
  const frames = e.stack
    ?.split("\n")
    .filter((line) => /^\s+at /.test(line))
    .join("\n");
  const cause = e.cause !== undefined && depth < 3 ? loggableError(e.cause, depth + 1) : undefined;
  return {
    name: e.name,
    message,
    ...(code ? { code } : {}),
    ...(table ? { table } : {}),
    ...(column ? { column } : {}),
    ...(constraint ? { constraint } : {}),
    ...(frames ? { stack: frames } : {}),
    ...(cause ? { cause } : {}),
  };
}

/**
 * `invalid input syntax for type uuid: "x"` -> `invalid input syntax for type uuid: "…"`. From
 * the first double quote to the last: quoted input may hold quotes of its own, unescaped
 * (PostgreSQL quotes values as they are; JSON.parse quotes a slice of the text it failed on).
 */
function maskQuoted(message: string): string {
  return message.replace(/"[\s\S]*"/, '"…"').replace(/=\(.*\)/g, "=(…)");
}
