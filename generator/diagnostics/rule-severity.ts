import type { Diagnostic, Severity } from "./diagnostic.ts";

/** What a project may set a rule to. */
export type RuleSetting = Severity | "off";

/**
 * Diagnostics with the severities a project chose: a rule set "off" is dropped, others take
 * the severity given (the config reader lets only warning rules be set below "error").
 */
export function applyRuleSettings(
  diagnostics: readonly Diagnostic[],
  rules: ReadonlyMap<string, RuleSetting>,
): Diagnostic[] {
  if (rules.size === 0) return [...diagnostics];
  const out: Diagnostic[] = [];
  for (const d of diagnostics) {
    const setting = rules.get(d.code);
    if (setting === "off") continue;
    out.push(setting === undefined || setting === d.severity ? d : { ...d, severity: setting });
  }
  return out;
}
