import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Argv } from "yargs";
import type { Command, CommonOptions } from "../options/command-context.ts";
import type { Console } from "../output/console.ts";

interface DeclarationsArgs extends CommonOptions {
  package: string;
  out?: string;
}

const builder = (y: Argv<CommonOptions>): Argv<DeclarationsArgs> =>
  y
    .positional("package", {
      type: "string",
      demandOption: true,
      describe: "The package folder or .app.zip (with APP-META.xml).",
    })
    .option("out", {
      type: "string",
      describe: "Folder to write <service>.schema.gen files to (default: print them).",
    });

export const declarationsCommand: Command<DeclarationsArgs> = (context) => ({
  command: "declarations <package>",
  describe:
    "Write the JSON declaration (what aps build writes as schemas/<service>.schema.gen) of each service declared in PHP annotations.",
  builder,
  handler: (args) =>
    context.run(() =>
      runDeclarations(
        String(args.package),
        args.out === undefined ? undefined : String(args.out),
        context.cwd,
        context.io,
      ),
    ),
});

/**
 * Writes the files into `out`, or prints them when no folder is given. Returns the exit code:
 * 1 when a service's type did not load.
 */
async function runDeclarations(
  packageInput: string,
  out: string | undefined,
  cwd: string,
  io: Console,
): Promise<number> {
  const { phpDeclarations } = await import("../../generator/pipeline.ts");
  const { formatDiagnostic, hasErrors } = await import("../../generator/diagnostics.ts");
  const { files, diagnostics } = phpDeclarations(packageInput, cwd);
  for (const d of diagnostics) io.err(formatDiagnostic(d));
  if (out !== undefined) {
    const dir = resolve(cwd, out);
    mkdirSync(dir, { recursive: true });
    for (const f of files) {
      writeFileSync(join(dir, f.name), `${f.text}\n`);
      io.out(`  wrote  ${join(out, f.name)}`);
    }
  } else {
    for (const f of files) io.out(f.text);
  }
  const failed = hasErrors(diagnostics);
  io.err(
    `${failed ? "✗" : "✓"} ${files.length} PHP-declared service${files.length === 1 ? "" : "s"} written as JSON declarations`,
  );
  return failed ? 1 : 0;
}
