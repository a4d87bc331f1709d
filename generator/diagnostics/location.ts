/**
 * A place in a declaration file: what every diagnostic points at (1-based line and column).
 * `endLine`/`endCol`, when known, are where the offending text ends: the position just after
 * its last character, as SARIF and editors count a range.
 */
export interface Loc {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly endLine?: number;
  readonly endCol?: number;
}
