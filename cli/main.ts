import { dirname, relative, resolve } from "node:path";
import yargs, { type Argv } from "yargs";
import { allCommands } from "./commands/all.ts";
import type { CommandContext, CommonOptions } from "./options/command-context.ts";
import { ConfigError, loadConfig, type ApsGenConfig, type RuleSetting } from "./options/load-config.ts";
import { completionCommand, globalOptions, USAGE } from "./options/global-options.ts";
import { environmentOptions, type OptionKinds } from "./options/environment-options.ts";
import { packageInfo } from "./output/package-info.ts";
import { endOnClosedOutput, ExitCode, processConsole, readProcessStdin, type Console } from "./output/console.ts";

export { ExitCode, type Console } from "./output/console.ts";

/** The value of `--config <file>` / `--config=<file>`, read before yargs so the file can give defaults. */
function explicitConfig(argv: readonly string[]): string | undefined {
  const i = argv.findIndex((a) => a === "--config" || a.startsWith("--config="));
  if (i < 0) return undefined;
  return argv[i]!.includes("=") ? argv[i]!.slice("--config=".length) : argv[i + 1];
}

/** Path options of a config file are relative to the file's folder, as tsconfig's are. */
const PATH_OPTIONS = new Set(["types", "out", "data", "package"]);

function configOptions(config: ApsGenConfig, cwd: string): Record<string, unknown> {
  const base = dirname(config.path);
  const fromFile = (p: unknown) => (typeof p === "string" ? relative(cwd, resolve(base, p)) || "." : p);
  return Object.fromEntries(
    Object.entries(config.options).map(([k, v]) => [
      k,
      PATH_OPTIONS.has(k) ? (Array.isArray(v) ? v.map(fromFile) : fromFile(v)) : v,
    ]),
  );
}

/**
 * yargs' "Invalid values:" message (an option value not among its choices, one indented line per
 * option) as one line: `--format "xml" is not one of text, json, sarif, github`. Undefined for
 * any other message.
 */
function invalidValues(message: string): string | undefined {
  if (!message.startsWith("Invalid values:")) return undefined;
  const each = [...message.matchAll(/Argument: (\S+), Given: (.+), Choices: (.+)$/gm)];
  if (each.length === 0) return undefined;
  return each
    .map(([, name, given, choices]) => `--${name} ${given} is not one of ${choices!.replace(/"/g, "")}`)
    .join("; ");
}

/**
 * yargs renders the whole help text after it starts a command's handler, in case the handler
 * fails later and the help is to be shown then. This CLI never shows help on a failure (its
 * `.fail` prints one line), and the rendering measures every line with Intl.Segmenter, whose
 * first use loads ICU data: a third of `aps-gen check`'s CPU on a small package. `--help`
 * renders on demand and is unaffected. The hook is internal to yargs; should it go away,
 * nothing breaks and the help is only rendered as before.
 */
function skipHelpPrerender(parser: Argv): void {
  const internal = parser as unknown as {
    getInternalMethods?(): { getUsageInstance?(): { cacheHelpMessage?: () => void } };
  };
  const usage = internal.getInternalMethods?.().getUsageInstance?.();
  if (typeof usage?.cacheHelpMessage === "function") usage.cacheHelpMessage = () => {};
}

/**
 * Runs the aps-gen CLI with the given arguments and returns the exit code. Only yargs, the
 * config reader and the command definitions load here; each command loads its work when it
 * runs (cli/options/command-context.ts).
 */
export async function main(
  argv: readonly string[],
  io: Console = processConsole,
  cwd = process.cwd(),
  stdin: () => Promise<string> = readProcessStdin,
): Promise<number> {
  if (io === processConsole) endOnClosedOutput();
  let config: ApsGenConfig | undefined;
  try {
    config = await loadConfig(
      cwd,
      argv.find((a) => !a.startsWith("-")),
      explicitConfig(argv),
    );
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(`aps-gen: ${error.message}`);
    return ExitCode.unusable;
  }
  const rules = config?.rules ?? new Map<string, RuleSetting>();
  let exitCode: number = ExitCode.ok;
  // yargs may still run a command after reporting a usage error; the usage error wins.
  let usageError = false;
  const context: CommandContext = {
    io,
    cwd,
    stdin,
    ownProcess:
      cwd === process.cwd() &&
      argv.length === process.argv.length - 2 &&
      argv.every((a, i) => a === process.argv[i + 2]),
    async run(work) {
      if (usageError) return;
      exitCode = await work();
    },
  };
  const fromEnvironment = environmentOptions(argv);
  const parser = yargs().scriptName("aps-gen").usage(USAGE);
  globalOptions(parser)
    .config(config ? configOptions(config, cwd) : {})
    .middleware((args) => {
      args.rules = rules;
    })
    // Every option can also come from the environment: APS_GEN_PORT=9443, APS_GEN_DATABASE_URL=...
    .middleware((args) => fromEnvironment(args, parser as unknown as { getOptions(): OptionKinds }), true);
  const typed = parser as unknown as Argv<CommonOptions>;
  for (const command of allCommands) typed.command(command(context));
  parser
    .completion(completionCommand.command, completionCommand.describe)
    .demandCommand(
      1,
      "Name a command: check, build, validate, serve, migrate, join, token, init, declarations, rules or lsp.",
    )
    .recommendCommands()
    .strict()
    .help()
    .version(packageInfo().version)
    .fail((message, error) => {
      if (error) throw error;
      // An option only the config file gave: say it is the file's.
      const unknown = /^Unknown arguments?: (.+)$/.exec(message)?.[1]?.split(", ");
      if (config && unknown?.every((name) => name in config.options)) {
        io.err(
          `aps-gen: ${config.path}: ${unknown.map((n) => `"${n}"`).join(", ")} ${unknown.length === 1 ? "is no option" : "are no options"} of this command; see aps-gen <command> --help`,
        );
        usageError = true;
        return;
      }
      const invalid = invalidValues(message);
      io.err(
        invalid
          ? `aps-gen: ${invalid}; see aps-gen <command> --help`
          : `aps-gen: ${message}\nRun "aps-gen --help" for usage.`,
      );
      usageError = true;
    })
    .exitProcess(false)
    .wrap(Math.min(110, process.stdout.columns ?? 100));
  skipHelpPrerender(parser);
  await parser.parseAsync([...argv], {}, (err, _argv, output) => {
    if (output && !err) io.out(output);
  });
  return usageError ? ExitCode.unusable : exitCode;
}
