import type { Argv } from "yargs";
import type { Command, CommonOptions } from "../options/command-context.ts";

interface LspArgs extends CommonOptions {
  stdio?: boolean;
  clientProcessId?: number;
}

// Editors' LSP clients add --stdio and --clientProcessId to the command they start; both are
// taken so that strict parsing accepts them (the library behind the server reads the latter).
const builder = (y: Argv<CommonOptions>): Argv<LspArgs> =>
  y
    .option("stdio", {
      type: "boolean",
      describe: "Accepted for the editors that pass it: standard input and output are the only transport.",
    })
    .option("clientProcessId", {
      type: "number",
      describe: "Passed by some editors: the server ends when that process is gone.",
    });

export const lspCommand: Command<LspArgs> = (context) => ({
  command: "lsp",
  describe:
    "Run the language server (LSP over stdin/stdout) for editors: live diagnostics, hover, go to definition, completion, quick fixes.",
  builder,
  handler: (args) =>
    context.run(async () => {
      const { existsSync } = await import("node:fs");
      const { resolve } = await import("node:path");
      const { ExitCode } = await import("../output/console.ts");
      const types = args.types?.map((t) => resolve(context.cwd, t));
      const missing = args.types?.find((_, i) => !existsSync(types![i]!));
      if (missing !== undefined) {
        context.io.err(`aps-gen lsp: ${missing}: no such file or directory.`);
        return ExitCode.unusable;
      }
      if (process.stdin.isTTY)
        context.io.err(
          "aps-gen lsp: speaking the Language Server Protocol on stdin/stdout; an editor starts it (see docs/lsp.md). Ctrl-C ends it.",
        );
      const { runLanguageServer } = await import("../lsp/server.ts");
      return runLanguageServer({
        cwd: context.cwd,
        core: args.core,
        ...(types && { types }),
        ...(args.rules && { rules: args.rules }),
      });
    }),
});
