/** A place in a declaration file: what every diagnostic points at (1-based line and column). */
export interface Loc {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}
