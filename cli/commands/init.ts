import { resolve } from "node:path";
import type { Argv } from "yargs";
import type { Command, CommonOptions } from "../options/command-context.ts";
import type { Console } from "../output/console.ts";

interface InitArgs extends CommonOptions {
  dir: string;
  package: string;
}

const builder = (y: Argv<CommonOptions>): Argv<InitArgs> =>
  y
    .positional("dir", {
      type: "string",
      demandOption: true,
      describe: "Folder of the new (or existing) connector project.",
    })
    .option("package", {
      type: "string",
      demandOption: true,
      describe: "The package folder or .app.zip (with APP-META.xml).",
    });

export const initCommand: Command<InitArgs> = (context) => ({
  command: "init <dir>",
  describe:
    "Scaffold a connector project for an application package: generated interfaces, handler stubs, a start script, a test, and VS Code settings that check declaration files against aps-gen's schema.",
  builder,
  handler: (args) => context.run(() => runInit(String(args.dir), String(args.package), args, context.io, context.cwd)),
});

async function runInit(
  dir: string,
  packageInput: string,
  options: CommonOptions,
  io: Console,
  cwd: string,
): Promise<number> {
  const { compileCleanOrReport, serviceSummary } = await import("../output/compile-report.ts");
  const { ExitCode } = await import("../output/console.ts");
  const result = compileCleanOrReport("init", ExitCode.findings, { ...options, types: [packageInput] }, io, cwd);
  if (typeof result === "number") return result;
  const pkg = result.model.packages.find((p) => !p.bundled && p.descriptor !== undefined);
  if (!pkg) {
    io.err(`aps-gen init: ${packageInput} has no APP-META.xml, so it is not an application package.`);
    return ExitCode.unusable;
  }
  const { initProject } = await import("../init/init-project.ts");
  const report = await initProject(result.model, pkg, resolve(cwd, dir), resolve(cwd, packageInput));
  for (const f of report.written) io.out(`  wrote  ${f}`);
  for (const f of report.kept) io.out(`  kept   ${f} (yours; not overwritten)`);
  for (const u of report.updated) {
    if (u.added.length)
      io.out(`  added  ${u.added.join(", ")} to ${u.file} (stubs; the rest of the file is as you left it)`);
    if (u.removed.length)
      io.out(
        `  note   ${u.file}: ${u.removed.join(", ")} ${u.removed.length === 1 ? "is" : "are"} no longer declared; left as ${u.removed.length === 1 ? "it is" : "they are"}, delete when done`,
      );
  }
  for (const n of report.notes) io.out(`  note   ${n}`);
  for (const line of serviceSummary(result)) io.out(line);
  io.out(`✓ connector project for ${pkg.name} in ${dir}: cd ${dir} && npm install && npm start`);
  return ExitCode.ok;
}
