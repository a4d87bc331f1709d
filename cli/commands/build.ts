import { resolve } from "node:path";
import type { Argv } from "yargs";
import type { Command, CommonOptions } from "../options/command-context.ts";
import type { Console } from "../output/console.ts";
import type { OutputReport } from "../../generator/host.ts";

interface BuildOptions extends CommonOptions {
  out: string;
  check: boolean;
  "dry-run": boolean;
  watch: boolean;
  cache: boolean;
}

const builder = (y: Argv<CommonOptions>): Argv<BuildOptions> =>
  y
    .option("out", { type: "string", default: "generated", describe: "Output folder." })
    .option("check", {
      type: "boolean",
      default: false,
      describe: "Write nothing; exit 1 and list the files that differ when the output is stale.",
    })
    .option("dry-run", {
      type: "boolean",
      default: false,
      describe: "Write nothing; list what a build would write and delete.",
    })
    .option("cache", {
      type: "boolean",
      default: true,
      describe:
        "Skip a build when nothing changed since the last clean one into the same folder (--no-cache: always build).",
    })
    .option("watch", {
      type: "boolean",
      default: false,
      describe: "Build again whenever a declaration changes, until Ctrl-C; errors are shown and watching goes on.",
    });

export const buildCommand: Command<BuildOptions> = (context) => ({
  command: "build",
  describe: "Check, then generate code into the output folder.",
  builder,
  handler: (options) =>
    context.run(async () => {
      const { io, cwd } = context;
      const exitCode = await runBuild(options, io, cwd);
      if (!options.watch) return exitCode;
      const { watchAndRebuild } = await import("../build/watch.ts");
      const { inputsOf } = await import("../output/compile-report.ts");
      await watchAndRebuild(
        { paths: inputsOf(options, cwd).map((p) => resolve(cwd, p)), ignore: [resolve(cwd, options.out)] },
        () => void runBuild(options, io, cwd),
        io.err,
      );
      return 0;
    }),
});

async function runBuild(options: BuildOptions, io: Console, cwd: string): Promise<number> {
  const start = performance.now();
  const { compileOrReport, counts, humanLines, inputsOf, printDiagnostics, seconds, serviceSummary, verdict } =
    await import("../output/compile-report.ts");
  const { hasErrors } = await import("../../generator/diagnostics.ts");
  const { ExitCode, plural } = await import("../output/console.ts");
  const print = humanLines(options, io);
  const say = (line: string) => print(verdict(line, options));
  const outName = `${options.out.replace(/\/$/, "")}/`;
  // Nothing changed since the last clean build into this folder: nothing to do (build-cache.ts).
  const cached = options.cache && !options.check && !options["dry-run"] && !options.watch && options.format === "text";
  const cache = !cached
    ? undefined
    : (await import("../build/build-cache.ts")).openBuildCache(
        inputsOf(options, cwd),
        options,
        resolve(cwd, options.out),
        cwd,
      );
  if (cache?.hit) {
    for (const line of cache.hit.summary) say(line);
    say(
      `✓ ${plural(cache.hit.types, "type")} → ${outName} · ${plural(cache.hit.outputs.length, "file")}, up to date: nothing changed since the last build · ${seconds(start)}`,
    );
    return ExitCode.ok;
  }
  const result = compileOrReport(options, io, cwd);
  if (typeof result === "number") return result;
  const failed = hasErrors(result.diagnostics, options["warn-as-error"]);
  if (failed) {
    printDiagnostics(result, options, io, cwd);
    for (const line of serviceSummary(result)) say(line);
    say(`✗ build stopped: ${counts(result.diagnostics)}; nothing was written · ${seconds(start)}`);
    return ExitCode.findings;
  }
  // Long builds say where they are (the phases run in one go, so after each one).
  const progress = (what: string) => {
    if (performance.now() - start > 1000) io.err(`  ${what} · ${seconds(start)}`);
  };
  progress(`loaded and checked ${plural(result.model.types.size, "type")}`);
  const { emitAll } = await import("../../generator/build.ts");
  const { compareHost, diskHost, isUpToDate } = await import("../../generator/host.ts");
  const files = emitAll(result.model);
  progress(`generated ${plural(files.length, "file")}`);
  const outDir = resolve(cwd, options.out);
  const compareOnly = options.check || options["dry-run"];
  const report = (compareOnly ? compareHost(outDir) : diskHost(outDir)).apply(files);
  printDiagnostics(result, options, io, cwd, { files: files.map((f) => f.path), report });
  const summary = serviceSummary(result);
  for (const line of summary) say(line);

  if (report.conflicts.length > 0) {
    for (const p of report.conflicts)
      say(`  conflict  ${outName}${p} has no aps-gen banner; it was not overwritten (move it away or delete it)`);
    say(
      `✗ build stopped: ${report.conflicts.length} hand-written file(s) in the way; nothing was written · ${seconds(start)}`,
    );
    return ExitCode.findings;
  }
  if (options.check) {
    if (isUpToDate(report)) {
      say(`✓ ${outName} is up to date · ${files.length} files · ${seconds(start)}`);
      return ExitCode.ok;
    }
    listChanges(report, outName, say);
    say(`✗ ${outName} is stale: run "aps-gen build" and commit the result · ${seconds(start)}`);
    return ExitCode.findings;
  }
  if (!options["dry-run"] && result.diagnostics.length === 0) cache?.save(summary, result.model.types.size);
  if (options["dry-run"]) listChanges(report, outName, say);
  const written = report.added.length + report.changed.length;
  const verb = options["dry-run"] ? "would write" : "written";
  say(
    `✓ ${plural(result.model.types.size, "type")} → ${outName} · ${plural(files.length, "file")} (${written} ${verb}, ${report.stale.length} stale ${options["dry-run"] ? "to delete" : "deleted"}) · ${seconds(start)}`,
  );
  return ExitCode.ok;
}

function listChanges(report: OutputReport, outName: string, say: (line: string) => void): void {
  for (const p of report.added) say(`  missing   ${outName}${p}`);
  for (const p of report.changed) say(`  differs   ${outName}${p}`);
  for (const p of report.stale) say(`  stale     ${outName}${p}`);
}
