import type { Loc } from "../diagnostics/location.ts";

export type { Loc };
/** A text file as read, with the line index needed to turn offsets into line:col. */
export interface SourceFile {
  /** Display path: forward slashes, relative to the working directory where possible. */
  readonly path: string;
  readonly text: string;
  /** Offsets at which each line starts; lineStarts[0] is 0. */
  readonly lineStarts: readonly number[];
  /**
   * For text made from another source (a declaration read from PHP annotations): where each
   * piece of the text came from. locAt then answers with the original place, so diagnostics
   * point at the annotation rather than at JSON nobody wrote.
   */
  readonly origins?: TextOrigins;
}

/** Sorted start offsets of generated pieces and the source place each one came from. */
export interface TextOrigins {
  readonly offsets: readonly number[];
  readonly locs: readonly Loc[];
}

/** A position inside a declaration, 1-based, as printed in diagnostics. */

/** Builds a SourceFile, indexing line starts once so every later lookup is a binary search. */
export function createSourceFile(path: string, text: string, origins?: TextOrigins): SourceFile {
  return { path, text, lineStarts: lineStartsOf(text), ...(origins && { origins }) };
}

function lineStartsOf(text: string): number[] {
  const lineStarts = [0];
  // Text without a \r (nearly all) is indexed by indexOf, which does not visit each character
  // in JavaScript: a 1000-file package spent a tenth of its loading in the loop below.
  if (!text.includes("\r")) {
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1);
    return lineStarts;
  }
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10 /* \n */) lineStarts.push(i + 1);
    else if (ch === 13 /* \r */ && text.charCodeAt(i + 1) !== 10) lineStarts.push(i + 1);
  }
  return lineStarts;
}

/** Converts a character offset to a 1-based line and column. */
export function locAt(file: SourceFile, offset: number): Loc {
  if (file.origins) return originAt(file.origins, offset);
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

/**
 * The place of `length` characters from `offset`, with where they end. Text made from another
 * source (PHP annotations) has only the start of its origin: its end is not known there.
 */
export function rangeAt(file: SourceFile, offset: number, length: number): Loc {
  const start = locAt(file, offset);
  if (file.origins || length <= 0) return start;
  const end = locAt(file, offset + length);
  return { ...start, endLine: end.line, endCol: end.col };
}

/** A location for problems that concern a whole file rather than a place in it. */
export function fileLoc(path: string): Loc {
  return { file: path, line: 1, col: 1 };
}

/** The origin of the last generated piece that starts at or before `offset`. */
function originAt(origins: TextOrigins, offset: number): Loc {
  const { offsets, locs } = origins;
  let lo = 0;
  let hi = offsets.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return locs[lo]!;
}
