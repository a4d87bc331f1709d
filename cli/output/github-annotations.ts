import type { Diagnostic } from "../../generator/diagnostics.ts";

/**
 * Diagnostics as GitHub Actions workflow commands, which the runner turns into annotations on
 * the pull request's lines: `::error file=...,line=...,col=...,endLine=...,endColumn=...,title=APS041::message`.
 * Escaping follows the runner's own toolkit (actions/toolkit, packages/core/src/command.ts):
 * in the message `%`, CR and LF; in a property value also `:` and `,`, which would otherwise
 * end the value. https://docs.github.com/actions/reference/workflow-commands-for-github-actions
 */
export function githubAnnotation(d: Diagnostic): string {
  const properties: [string, string | number | undefined][] = [
    ["file", d.file],
    ["line", d.line],
    ["col", d.col],
    ["endLine", d.endLine],
    ["endColumn", d.endCol],
    ["title", d.code],
  ];
  const written = properties
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${escapeProperty(String(value))}`);
  return `::${d.severity} ${written.join(",")}::${escapeData(d.message)}`;
}

export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}
