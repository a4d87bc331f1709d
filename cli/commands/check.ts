import type { Command, CommonOptions } from "../options/command-context.ts";
import { noOptions } from "../options/command-context.ts";
import type { Console } from "../output/console.ts";

export const checkCommand: Command<CommonOptions> = (context) => ({
  command: "check",
  describe:
    "Check every declaration rule and print diagnostics as file:line:col (--format json, sarif or github for CI).",
  builder: noOptions,
  handler: (args) => context.run(() => runCheck(args, context.io, context.cwd)),
});

async function runCheck(options: CommonOptions, io: Console, cwd: string): Promise<number> {
  const start = performance.now();
  const { compileOrReport, counts, humanLines, printDiagnostics, seconds, serviceSummary, verdict } = await import(
    "../output/compile-report.ts"
  );
  const { hasErrors } = await import("../../generator/diagnostics.ts");
  const { ExitCode, plural } = await import("../output/console.ts");
  const result = compileOrReport(options, io, cwd);
  if (typeof result === "number") return result;
  printDiagnostics(result, options, io, cwd);
  const failed = hasErrors(result.diagnostics, options["warn-as-error"]);
  const summary = `${failed ? "✗" : "✓"} ${plural(result.model.types.size, "type")} checked · ${counts(result.diagnostics)} · ${seconds(start)}`;
  const print = humanLines(options, io);
  for (const line of serviceSummary(result)) print(line);
  print(verdict(summary, options));
  return failed ? ExitCode.findings : ExitCode.ok;
}
