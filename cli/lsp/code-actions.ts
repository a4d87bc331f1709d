import { CodeActionKind, type CodeAction, type Diagnostic as LspDiagnostic } from "vscode-languageserver";
import type { QuickFixData } from "./diagnostics.ts";

/**
 * Quick fixes for the diagnostics the editor sends back with a code-action request: each one
 * whose did-you-mean the compiler made machine-readable (toLspDiagnostic put it in `data`)
 * becomes an edit writing the suggested text in place of the misspelt one.
 */
export function quickFixes(uri: string, diagnostics: readonly LspDiagnostic[]): CodeAction[] {
  const fixes: CodeAction[] = [];
  for (const diagnostic of diagnostics) {
    const data = diagnostic.data as Partial<QuickFixData> | undefined;
    if (diagnostic.source !== "aps-gen" || typeof data?.replacement !== "string" || !data.range) continue;
    fixes.push({
      title: `Change to "${data.replacement}"`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [diagnostic],
      isPreferred: true,
      edit: { changes: { [uri]: [{ range: data.range, newText: data.replacement }] } },
    });
  }
  return fixes;
}
