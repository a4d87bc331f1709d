import type { Argv, CommandModule } from "yargs";
import type { RuleSetting } from "../../generator/diagnostics.ts";
import type { Console } from "../output/console.ts";
import type { ReportFormat } from "../output/report-format.ts";

/** Options every command takes (cli/main.ts defines them). */
export interface CommonOptions {
  types?: string[];
  /** Output of check and build (validate: text or json); see cli/output/report-format.ts. */
  format: ReportFormat;
  "warn-as-error": boolean;
  core: boolean;
  /** Rule severities from the config file. */
  rules?: ReadonlyMap<string, RuleSetting>;
  /** Colour; undefined: on a terminal only (NO_COLOR honoured). */
  color?: boolean;
  /** Code frames under text diagnostics; undefined: on a terminal only. */
  pretty?: boolean;
}

/** What a command's handler runs with. */
export interface CommandContext {
  readonly io: Console;
  readonly cwd: string;
  readonly stdin: () => Promise<string>;
  /**
   * Whether this process is the CLI run with these arguments in this folder (bin/aps-gen.js), not
   * main() called inside another program: `serve --workers` forks the process's own command line.
   */
  readonly ownProcess: boolean;
  /**
   * Runs the command's work and keeps its exit code, unless yargs has already reported a usage
   * error (it may still call the handler afterwards; the usage error wins).
   */
  run(work: () => number | Promise<number>): Promise<void>;
}

/**
 * One CLI command: its yargs definition with a typed builder. A command module imports only
 * types at the top; its handler imports the work it needs when it runs, so `--help` and the
 * light commands never load the controller, the database or the emitters.
 */
export type Command<U> = (context: CommandContext) => CommandModule<CommonOptions, U>;

/** The typed builder of a command with no options of its own. */
export const noOptions = (y: Argv<CommonOptions>): Argv<CommonOptions> => y;
