import type { Command } from "../options/command-context.ts";
import { buildCommand } from "./build.ts";
import { checkCommand } from "./check.ts";
import { declarationsCommand } from "./declarations.ts";
import { initCommand } from "./init.ts";
import { joinCommand } from "./join.ts";
import { lspCommand } from "./lsp.ts";
import { migrateCommand } from "./migrate.ts";
import { rulesCommand } from "./rules.ts";
import { serveCommand } from "./serve.ts";
import { tokenCommand } from "./token.ts";
import { validateCommand } from "./validate.ts";

/** Every command, in the order `aps-gen --help` lists them (cli/main.ts) and docs/cli.md describes them. */
// biome-ignore lint/suspicious/noExplicitAny: each command has its own argument type; the list holds them all.
export const allCommands: readonly Command<any>[] = [
  checkCommand,
  buildCommand,
  validateCommand,
  serveCommand,
  migrateCommand,
  joinCommand,
  tokenCommand,
  initCommand,
  declarationsCommand,
  rulesCommand,
  lspCommand,
];
