/**
 * The generator's findings and their rules: an entry of its own (generator/index.ts re-exports
 * it) that loads nothing but generator/diagnostics/, for callers that only list, filter or print
 * findings (the CLI's `--help`, `rules` and its configuration, which must start fast).
 */
export { allCodes, Codes, type DiagnosticCode } from "./diagnostics/codes.ts";
export {
  formatDiagnostic,
  hasErrors,
  sortDiagnostics,
  type Diagnostic,
  type Severity,
  type Suggestion,
} from "./diagnostics/diagnostic.ts";
export { applyRuleSettings, type RuleSetting } from "./diagnostics/rule-severity.ts";
