import type { DiagnosticCode, Severity } from "./codes.ts";
import type { Loc } from "./location.ts";

export type { Severity };

/** One finding about the declarations, pointing at the place to fix. */
export interface Diagnostic {
  /** Stable code, e.g. `APS052`; never reused for another rule. */
  readonly code: string;
  /** Short kebab-case name of the rule, e.g. `duplicate-operation-route`. */
  readonly rule: string;
  readonly severity: Severity;
  readonly message: string;
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** Where the offending text ends (just after it), when the rule knows: see Loc. */
  readonly endLine?: number;
  readonly endCol?: number;
  /** A did-you-mean fix, machine-readable: present only when the message suggests one. */
  readonly suggestion?: Suggestion;
}

/**
 * What a did-you-mean message proposes: the text written at (or just after) the diagnostic's
 * place and what to write instead. Editors offer it as a quick fix (aps-gen lsp).
 */
export interface Suggestion {
  readonly written: string;
  readonly replacement: string;
}

/** Collects diagnostics in the order they are found. */
export class DiagnosticSink {
  readonly items: Diagnostic[] = [];

  /** Records a finding of the given rule at `loc`. */
  report(rule: DiagnosticCode, loc: Loc, message: string, suggestion?: Suggestion): void {
    this.items.push({
      code: rule.code,
      rule: rule.rule,
      severity: rule.severity,
      message,
      file: loc.file,
      line: loc.line,
      col: loc.col,
      ...(loc.endLine !== undefined && { endLine: loc.endLine, endCol: loc.endCol }),
      ...(suggestion && { suggestion }),
    });
  }

  /** Adds findings made elsewhere (another sink, a loaded package). */
  addAll(items: readonly Diagnostic[]): void {
    for (const d of items) this.items.push(d);
  }
}

/** True when any diagnostic is an error (or a warning, when warnings count as errors). */
export function hasErrors(items: readonly Diagnostic[], warnAsError = false): boolean {
  return items.some((d) => d.severity === "error" || warnAsError);
}

/** Sorts diagnostics by file, line and column so output is stable whatever order rules ran in. */
export function sortDiagnostics(items: readonly Diagnostic[]): Diagnostic[] {
  return [...items].sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
      a.line - b.line ||
      a.col - b.col ||
      (a.code < b.code ? -1 : a.code > b.code ? 1 : 0),
  );
}

/** `file:line:col - error APS052: message`, the format editors and CI annotators understand. */
export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.col} - ${d.severity} ${d.code}: ${d.message}`;
}
