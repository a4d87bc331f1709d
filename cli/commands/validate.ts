import type { Argv } from "yargs";
import { ACTOR_NAMES } from "../../runtime/common/actor.ts";
import type { Command, CommonOptions } from "../options/command-context.ts";

interface ValidateArgs extends CommonOptions {
  file: string;
  type: string;
  mode: "create" | "update";
  actor: (typeof ACTOR_NAMES)[number];
}

const builder = (y: Argv<CommonOptions>): Argv<ValidateArgs> =>
  y
    .positional("file", {
      type: "string",
      demandOption: true,
      describe: "JSON file with the body, or - for standard input.",
    })
    .option("type", {
      type: "string",
      demandOption: true,
      describe: "Type id (or a type name that is unique in the inputs).",
    })
    .option("mode", {
      choices: ["create", "update"] as const,
      default: "create" as const,
      describe: "Provision (create) or configure (update) body.",
    })
    .option("actor", {
      choices: ACTOR_NAMES,
      default: "owner" as const,
      describe: "Who writes: a user holding that role, or the application.",
    });

export const validateCommand: Command<ValidateArgs> = (context) => ({
  command: "validate <file>",
  describe:
    "Validate a resource body (a JSON file, or - for standard input) with the generated validators of its type.",
  builder,
  handler: (args) =>
    context.run(async () => {
      const { compileCleanOrReport } = await import("../output/compile-report.ts");
      const { validateBody } = await import("../validate/validate-body.ts");
      const { ExitCode } = await import("../output/console.ts");
      // SARIF and annotations are about declarations; a body's errors are text or JSON.
      const format = args.format;
      if (format !== "text" && format !== "json") {
        context.io.err(`aps-gen validate: --format ${format} is for check and build; validate prints text or json`);
        return ExitCode.unusable;
      }
      // yargs hands the positional "-" over as "".
      const options = { ...args, format, file: args.file === "" ? "-" : String(args.file) };
      const result = compileCleanOrReport("validate", ExitCode.unusable, options, context.io, context.cwd);
      if (typeof result === "number") return result;
      const outcome = await validateBody(result.model, options, context.cwd, context.stdin);
      for (const line of outcome.out) context.io.out(line);
      for (const line of outcome.err) context.io.err(line);
      return outcome.exitCode;
    }),
});
