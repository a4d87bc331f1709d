/** A text file as read, with the line index needed to turn offsets into line:col. */
export interface SourceFile {
  /** Display path: forward slashes, relative to the working directory where possible. */
  readonly path: string;
  readonly text: string;
  /** Offsets at which each line starts; lineStarts[0] is 0. */
  readonly lineStarts: readonly number[];
}

/** A position inside a declaration, 1-based, as printed in diagnostics. */
export interface Loc {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

/** Builds a SourceFile, indexing line starts once so every later lookup is a binary search. */
export function createSourceFile(path: string, text: string): SourceFile {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10 /* \n */) lineStarts.push(i + 1);
    else if (ch === 13 /* \r */ && text.charCodeAt(i + 1) !== 10) lineStarts.push(i + 1);
  }
  return { path, text, lineStarts };
}

/** Converts a character offset to a 1-based line and column. */
export function locAt(file: SourceFile, offset: number): Loc {
  const starts = file.lineStarts;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { file: file.path, line: lo + 1, col: offset - starts[lo]! + 1 };
}

/** A location for problems that concern a whole file rather than a place in it. */
export function fileLoc(path: string): Loc {
  return { file: path, line: 1, col: 1 };
}
