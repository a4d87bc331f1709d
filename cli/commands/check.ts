import type { Command, CommonOptions } from "../command-context.ts";
import { noOptions } from "../command-context.ts";
import type { Console } from "../console.ts";

export const checkCommand: Command<CommonOptions> = (context) => ({
  command: "check",
  describe: "Check every declaration rule and print diagnostics as file:line:col.",
  builder: noOptions,
  handler: (args) => context.run(() => runCheck(args, context.io, context.cwd)),
});

async function runCheck(options: CommonOptions, io: Console, cwd: string): Promise<number> {
  const start = performance.now();
  const { compileOrReport, counts, printDiagnostics, seconds, serviceSummary, verdict } = await import("../compile-report.ts");
  const { hasErrors } = await import("../../generator/diagnostics/diagnostic.ts");
  const { ExitCode, plural } = await import("../console.ts");
  const result = compileOrReport(options, io, cwd);
  if (typeof result === "number") return result;
  printDiagnostics(result.diagnostics, options, io, cwd);
  const failed = hasErrors(result.diagnostics, options["warn-as-error"]);
  const summary = `${failed ? "✗" : "✓"} ${plural(result.model.types.size, "type")} checked · ${counts(result.diagnostics)} · ${seconds(start)}`;
  const print = options.format === "json" ? io.err : io.out;
  for (const line of serviceSummary(result)) print(line);
  print(verdict(summary, options));
  return failed ? ExitCode.findings : ExitCode.ok;
}
