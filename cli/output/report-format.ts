/**
 * The output formats of `--format`. check and build take them all; validate prints its own
 * text or JSON only. text is for people; the others are for CI (docs/ci.md).
 */
export const REPORT_FORMATS = ["text", "json", "sarif", "github"] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
