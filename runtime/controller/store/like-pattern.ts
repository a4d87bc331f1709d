/**
 * Text inside a SQL `like` pattern. PostgreSQL's `like` takes `%` and `_` as wildcards and `\` as
 * its escape character by default, so each of the three is escaped to stand for itself.
 */

/** `text` matched literally by `like`. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A `like` pattern for every text that starts with `prefix` (an account path and the accounts below it). */
export function likePrefix(prefix: string): string {
  return `${likeLiteral(prefix)}%`;
}
