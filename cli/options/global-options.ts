import type { Argv } from "yargs";
import { REPORT_FORMATS } from "../output/report-format.ts";

/**
 * The options every command takes, and the one command yargs itself provides. cli/main.ts adds
 * them to its parser; scripts/cli-reference.ts renders them into docs/cli.md, so the reference
 * is read from the same definitions the CLI parses with.
 */
export function globalOptions<T>(y: Argv<T>) {
  return y
    .option("types", {
      type: "string",
      array: true,
      describe:
        "Package folders, .app.zip files or folders to search. Default: ./types if it exists, else the current folder (serve: else the core types only).",
    })
    .option("format", {
      choices: REPORT_FORMATS,
      default: "text" as const,
      describe:
        "Output: text for people; json (one document), sarif (SARIF 2.1.0 log) or github (workflow annotations) for CI, see docs/ci.md. validate: text or json.",
    })
    .option("warn-as-error", { type: "boolean", default: false, describe: "Treat warnings as errors." })
    .option("core", {
      type: "boolean",
      default: true,
      describe: "Load the bundled APS core types (use --no-core to leave them out).",
    })
    .option("color", {
      type: "boolean",
      describe: "Colour the output (default: on a terminal, unless NO_COLOR is set).",
    })
    .option("pretty", {
      type: "boolean",
      describe: "Show the declaration lines around each diagnostic (default: on a terminal).",
    })
    .option("config", {
      type: "string",
      describe: 'Config file (default: aps-gen.config.{json,ts,mjs,js} or package.json "aps-gen", here or above).',
    });
}

/** `aps-gen completion`, which yargs provides. */
export const completionCommand = {
  command: "completion",
  describe: "Print a shell completion script (bash or zsh): aps-gen completion >> ~/.bashrc",
} as const;

export const USAGE =
  "$0 <command> [options]\n\nCompiles APS 2.0 type declarations into types, validators, a controller and connectors, and runs the controller.";
