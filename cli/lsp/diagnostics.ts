import { pathToFileURL } from "node:url";
import { DiagnosticSeverity, type Diagnostic as LspDiagnostic, type Range } from "vscode-languageserver";
import type { Diagnostic } from "../../generator/diagnostics.ts";

/** What a diagnostic with a did-you-mean carries to the quick fix (cli/lsp/code-actions.ts). */
export interface QuickFixData {
  readonly replacement: string;
  /** Where the misspelt text is in the document the diagnostic was made from. */
  readonly range: Range;
}

/** How many lines after a diagnostic's own the misspelt text may sit (a relation's `type` value under its key). */
const SEARCH_LINES = 3;

/**
 * The compiler's diagnostic as LSP sees it. `lines` is the text of the diagnostic's file, so the
 * range can cover the word or string at the diagnostic's place when the compiler gives its start only.
 */
function toLspDiagnostic(d: Diagnostic, lines: readonly string[]): LspDiagnostic {
  const line = Math.max(0, d.line - 1);
  const character = Math.max(0, d.col - 1);
  const fix = d.suggestion && findWritten(lines, line, character, d.suggestion.written);
  // The compiler gives the end of the offending text for some rules; for the others, the word or string at the start.
  const end =
    d.endLine !== undefined && d.endCol !== undefined
      ? { line: d.endLine - 1, character: d.endCol - 1 }
      : { line, character: tokenEnd(lines[line] ?? "", character) };
  const range = fix ?? { start: { line, character }, end };
  return {
    range,
    severity: d.severity === "error" ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    code: d.code,
    source: "aps-gen",
    message: `${d.message} (${d.rule})`,
    ...(fix && d.suggestion && { data: { replacement: d.suggestion.replacement, range: fix } satisfies QuickFixData }),
  };
}

/** The place of `written` at or after the diagnostic's start, on its line or a few lines below. */
function findWritten(lines: readonly string[], line: number, character: number, written: string): Range | undefined {
  for (let l = line; l < Math.min(lines.length, line + 1 + SEARCH_LINES); l++) {
    const at = (lines[l] ?? "").indexOf(written, l === line ? character : 0);
    if (at >= 0) return { start: { line: l, character: at }, end: { line: l, character: at + written.length } };
  }
  return undefined;
}

/** The end of the quoted string or the name starting at `start`; at least one character when the line has one. */
function tokenEnd(line: string, start: number): number {
  if (start >= line.length) return start;
  if (line[start] === '"' || line[start] === "'") {
    const close = line.indexOf(line[start]!, start + 1);
    return close < 0 ? line.length : close + 1;
  }
  let end = start;
  while (end < line.length && /[\w$@.:/#<>-]/.test(line[end]!)) end++;
  return Math.max(end, start + 1);
}

/** A text's lines, split as the compiler counts them (\n, \r\n or a lone \r). */
export function linesOf(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/**
 * Diagnostics grouped by file URI, with an empty list for every file that had some last time,
 * so that fixed files are cleared in the editor.
 */
export class DiagnosticsByFile {
  private previous = new Set<string>();

  /** The lists to publish for `diagnostics`; `absolute` maps display paths, `lines` reads a file's current text. */
  next(
    diagnostics: readonly Diagnostic[],
    absolute: (file: string) => string,
    lines: (path: string) => readonly string[],
  ): Map<string, LspDiagnostic[]> {
    const byUri = new Map<string, LspDiagnostic[]>();
    const linesByPath = new Map<string, readonly string[]>();
    for (const d of diagnostics) {
      const path = absolute(d.file);
      const uri = pathToFileURL(path).href;
      let fileLines = linesByPath.get(path);
      if (!fileLines) linesByPath.set(path, (fileLines = lines(path)));
      const list = byUri.get(uri) ?? [];
      list.push(toLspDiagnostic(d, fileLines));
      byUri.set(uri, list);
    }
    for (const uri of this.previous) if (!byUri.has(uri)) byUri.set(uri, []);
    this.previous = new Set([...byUri].filter(([, list]) => list.length > 0).map(([uri]) => uri));
    return byUri;
  }
}
