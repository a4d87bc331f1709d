import { isAbsolute } from "node:path";
import { pathToFileURL } from "node:url";
import type { Diagnostic, DiagnosticCode } from "../../generator/diagnostics.ts";
import type { PackageInfo } from "./package-info.ts";

/**
 * Diagnostics as a SARIF 2.1.0 log (https://docs.oasis-open.org/sarif/sarif/v2.1.0/), the
 * format GitHub code scanning uploads (github/codeql-action/upload-sarif). One run; its tool
 * lists every rule aps-gen has, so a result's rule is described even when no other result of
 * that rule is in the log. Only the properties GitHub reads and the schema needs are written.
 */
export function sarifLog(
  diagnostics: readonly Diagnostic[],
  rules: readonly DiagnosticCode[],
  tool: PackageInfo,
): object {
  const ruleIndex = new Map(rules.map((r, i) => [r.code, i]));
  return {
    $schema: "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: tool.name,
            version: tool.version,
            informationUri: tool.homepage,
            rules: rules.map((r) => ({
              id: r.code,
              name: r.rule,
              shortDescription: { text: r.summary },
              defaultConfiguration: { level: r.severity },
            })),
          },
        },
        // Diagnostics count columns in JavaScript string units.
        columnKind: "utf16CodeUnits",
        results: diagnostics.map((d) => ({
          ruleId: d.code,
          ...(ruleIndex.has(d.code) && { ruleIndex: ruleIndex.get(d.code) }),
          // The severity the project set for the rule (config "rules"), not only its default.
          level: d.severity,
          message: { text: d.message },
          locations: [{ physicalLocation: { artifactLocation: { uri: artifactUri(d.file) }, region: regionOf(d) } }],
        })),
      },
    ],
  };
}

/**
 * A diagnostic's file as a URI reference: relative paths (to the working folder, which is what
 * GitHub resolves them against when aps-gen runs at the repository's root) stay relative, each
 * segment percent-encoded; an absolute path becomes a file: URI.
 */
export function artifactUri(file: string): string {
  if (isAbsolute(file) || /^[A-Za-z]:[\\/]/.test(file)) return pathToFileURL(file).href;
  return file.split(/[\\/]/).map(encodeURIComponent).join("/");
}

function regionOf(d: Diagnostic): object {
  // Line 0 would be invalid SARIF: a diagnostic about a whole file has line 1, column 1.
  const start = { startLine: Math.max(1, d.line), startColumn: Math.max(1, d.col) };
  if (d.endLine === undefined || d.endCol === undefined) return start;
  return { ...start, endLine: d.endLine, endColumn: d.endCol };
}
