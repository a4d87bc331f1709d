import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import yargs from "yargs";
import { emitAll } from "./build.ts";
import { allCodes } from "./check/codes.ts";
import { CodeFrames } from "./check/code-frame.ts";
import { applyRuleSettings } from "./check/rule-severity.ts";
import { ConfigError, loadConfig, type ApsGenConfig, type RuleSetting } from "./config/load-config.ts";
import { formatDiagnostic, hasErrors, type Diagnostic } from "./check/diagnostic.ts";
import { colourWanted, style, type Style } from "./terminal-style.ts";
import { compareHost, diskHost, isUpToDate, type OutputReport } from "./host.ts";
import { InputError } from "./load/package-source.ts";
import { compile, type CompileResult } from "./pipeline.ts";
import { ACTOR_NAMES } from "../runtime/common/actor.ts";
import { packageRoot } from "../runtime/common/package-root.ts";
import { validateBody, type ValidateOptions } from "./validate-command.ts";
import { serveModel, type ServeOptions } from "./serve-command.ts";
import { initProject } from "./init-project.ts";
import { runDeclarations } from "./declarations-command.ts";
import { loadKeys } from "../runtime/controller/data-directory.ts";
import { TokenService } from "../runtime/controller/auth/tokens.ts";
import { ControllerStartError } from "../runtime/controller/start-errors.ts";

/** Exit codes: 0 clean, 1 findings (errors, stale output), 2 unusable input or usage. */
export const ExitCode = { ok: 0, findings: 1, unusable: 2 } as const;

interface CommonOptions {
  types?: string[];
  format: "text" | "json";
  "warn-as-error": boolean;
  core: boolean;
  /** Rule severities from the config file. */
  rules?: ReadonlyMap<string, RuleSetting>;
  /** Colour; undefined: on a terminal only (NO_COLOR honoured). */
  color?: boolean;
  /** Code frames under text diagnostics; undefined: on a terminal only. */
  pretty?: boolean;
}

/** Where console output goes; tests pass their own. */
export interface Console {
  out(line: string): void;
  err(line: string): void;
}

const processConsole: Console = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** aps-gen's own version, from its package.json (found next to this module's folder). */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot(import.meta.url), "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

/**
 * Ends the process with one line and exit code 2 when its output is closed early (a reader such
 * as `| head` that stops reading), instead of Node's EPIPE stack trace.
 */
let guardingOutput = false;
function endOnClosedOutput(): void {
  if (guardingOutput) return;
  guardingOutput = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
      try {
        process.stderr.write(`aps-gen: output closed by the reader (EPIPE); stopped\n`);
      } catch {
        // stderr is the closed one: nothing can be said.
      }
      process.exit(ExitCode.unusable);
    });
  }
}

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
  return Object.fromEntries(Object.entries(config.options).map(([k, v]) => [k, PATH_OPTIONS.has(k) ? (Array.isArray(v) ? v.map(fromFile) : fromFile(v)) : v]));
}

/** Runs the aps-gen CLI with the given arguments and returns the exit code. */
export async function main(argv: readonly string[], io: Console = processConsole, cwd = process.cwd(), stdin: () => Promise<string> = readProcessStdin): Promise<number> {
  if (io === processConsole) endOnClosedOutput();
  let config: ApsGenConfig | undefined;
  try {
    config = await loadConfig(cwd, argv.find((a) => !a.startsWith("-")), explicitConfig(argv));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(`aps-gen: ${error.message}`);
    return ExitCode.unusable;
  }
  const rules = config?.rules ?? new Map<string, RuleSetting>();
  let exitCode: number = ExitCode.ok;
  // yargs may still run a command after reporting a usage error; the usage error wins.
  let usageError = false;
  const parser = yargs()
    .scriptName("aps-gen")
    .usage("$0 <command> [options]\n\nCompiles APS 2.0 type declarations into types, validators, a controller and connectors, and runs the controller.")
    .option("types", { type: "string", array: true, describe: "Package folders, .app.zip files or folders to search. Default: ./types if it exists, else the current folder." })
    .option("format", { choices: ["text", "json"] as const, default: "text" as const, describe: "Diagnostics as text lines or one JSON document." })
    .option("warn-as-error", { type: "boolean", default: false, describe: "Treat warnings as errors." })
    .option("core", { type: "boolean", default: true, describe: "Load the bundled APS core types (use --no-core to leave them out)." })
    .option("color", { type: "boolean", describe: "Colour the output (default: on a terminal, unless NO_COLOR is set)." })
    .option("pretty", { type: "boolean", describe: "Show the declaration lines around each diagnostic (default: on a terminal)." })
    .option("config", { type: "string", describe: "Config file (default: aps-gen.config.{json,ts,mjs,js} or package.json \"aps-gen\", here or above)." })
    .config(config ? configOptions(config, cwd) : {})
    .middleware((args) => {
      args.rules = rules;
    })
    .command(
      "check",
      "Check every declaration rule and print diagnostics as file:line:col.",
      (y) => y,
      (args) => {
        if (usageError) return;
        exitCode = runCheck(args as unknown as CommonOptions, io, cwd);
      },
    )
    .command(
      "build",
      "Check, then generate code into the output folder.",
      (y) =>
        y
          .option("out", { type: "string", default: "generated", describe: "Output folder." })
          .option("check", { type: "boolean", default: false, describe: "Write nothing; exit 1 and list the files that differ when the output is stale." })
          .option("dry-run", { type: "boolean", default: false, describe: "Write nothing; list what a build would write and delete." })
          .option("watch", { type: "boolean", default: false, describe: "Build again whenever a declaration changes, until Ctrl-C; errors are shown and watching goes on." }),
      async (args) => {
        if (usageError) return;
        const options = args as unknown as CommonOptions & { out: string; check: boolean; "dry-run": boolean; watch: boolean };
        exitCode = runBuild(options, io, cwd);
        if (!options.watch) return;
        const { watchAndRebuild } = await import("./watch.ts");
        await watchAndRebuild({ paths: inputsOf(options, cwd).map((p) => resolve(cwd, p)), ignore: [resolve(cwd, options.out)] }, () => void runBuild(options, io, cwd), io.err);
        exitCode = ExitCode.ok;
      },
    )
    .command(
      "validate <file>",
      "Validate a resource body (a JSON file, or - for standard input) with the generated validators of its type.",
      (y) =>
        y
          .positional("file", { type: "string", demandOption: true, describe: "JSON file with the body, or - for standard input." })
          .option("type", { type: "string", demandOption: true, describe: "Type id (or a type name that is unique in the inputs)." })
          .option("mode", { choices: ["create", "update"] as const, default: "create" as const, describe: "Provision (create) or configure (update) body." })
          .option("actor", { choices: ACTOR_NAMES, default: "owner" as const, describe: "Who writes: a user holding that role, or the application." }),
      async (args) => {
        if (usageError) return;
        // yargs hands the positional "-" over as "".
        const file = args.file === "" ? "-" : String(args.file);
        exitCode = await runValidate({ ...(args as unknown as CommonOptions & ValidateOptions), file }, io, cwd, stdin);
      },
    )
    .command(
      "serve",
      "Run the controller over HTTPS for the declarations (PGlite in the data folder unless a database URL is given).",
      (y) =>
        y
          .option("host", { type: "string", default: "127.0.0.1", describe: "Address to listen on." })
          .option("port", { type: "number", default: 8443, describe: "Port to listen on (0 picks a free one)." })
          .option("data", { type: "string", default: ".aps-data", describe: "Data folder: keys, TLS files, admin token, embedded database." })
          .option("database-url", { type: "string", describe: "PostgreSQL URL (default: $DATABASE_URL, else embedded PGlite)." })
          .option("jwks-url", { type: "string", describe: "Also accept APS tokens signed by this external issuer's JWKS." })
          .option("jwks-issuer", { type: "string", describe: "The external issuer's iss claim (default: the JWKS URL's origin)." })
          .option("event-attempts", { type: "number", default: 10, describe: "Failed deliveries of an event notification before it goes to the dead-letter list." })
          .option("event-retry", { type: "number", default: 5, describe: "Seconds before the first retry of a failed delivery; doubled for each further one (at most 600)." })
          .option("endpoint-timeout", { type: "number", default: 30, describe: "Seconds to wait for an application endpoint before answering 504." }),
      async (args) => {
        if (usageError) return;
        exitCode = await runServe(args as unknown as CommonOptions & ServeOptions, io, cwd);
      },
    )
    .command(
      "token",
      "Mint an APS-Token for an account (and user) of the controller whose data folder is given.",
      (y) =>
        y
          .option("account", { type: "string", describe: "Account id the token acts for (none: the anonymous token)." })
          .option("user", { type: "string", describe: "User id within that account." })
          .option("data", { type: "string", default: ".aps-data", describe: "The controller's data folder (its token key is there)." })
          .option("expires", { type: "string", describe: 'Lifetime such as "12h" or "30d" (default: none).' }),
      async (args) => {
        if (usageError) return;
        const dataDir = resolve(cwd, String(args.data));
        // A token signed with a key minted here would be refused by the controller: never mint one.
        if (!process.env.APS_TOKEN_KEY && !existsSync(join(dataDir, "keys", "token.key"))) {
          io.err(`aps-gen token: ${String(args.data)} is not a controller's data folder (it has no keys/token.key); give --data the folder "aps-gen serve" uses`);
          exitCode = ExitCode.unusable;
          return;
        }
        const keys = loadKeys(dataDir);
        const token = await new TokenService(keys.token).mint({ ...(args.account ? { accountId: String(args.account) } : {}), ...(args.user ? { userId: String(args.user) } : {}) }, args.expires ? String(args.expires) : undefined);
        io.out(token);
      },
    )
    .command(
      "init <dir>",
      "Scaffold a connector project for an application package: generated interfaces, handler stubs, a start script and a test.",
      (y) =>
        y
          .positional("dir", { type: "string", demandOption: true, describe: "Folder of the new (or existing) connector project." })
          .option("package", { type: "string", demandOption: true, describe: "The package folder or .app.zip (with APP-META.xml)." }),
      async (args) => {
        if (usageError) return;
        exitCode = await runInit(String(args.dir), String(args.package), args as unknown as CommonOptions, io, cwd);
      },
    )
    .command(
      "declarations <package>",
      "Write the JSON declaration (what aps build writes as schemas/<service>.schema.gen) of each service declared in PHP annotations.",
      (y) =>
        y
          .positional("package", { type: "string", demandOption: true, describe: "The package folder or .app.zip (with APP-META.xml)." })
          .option("out", { type: "string", describe: "Folder to write <service>.schema.gen files to (default: print them)." }),
      (args) => {
        if (usageError) return;
        exitCode = runDeclarations(String(args.package), args.out === undefined ? undefined : String(args.out), cwd, io);
      },
    )
    .command("rules", "List every declaration rule with its code.", (y) => y, () => {
      for (const c of allCodes) io.out(`${c.code}  ${c.severity.padEnd(7)}  ${c.rule.padEnd(30)}  ${c.summary}`);
    })
    .completion("completion", "Print a shell completion script (bash or zsh): aps-gen completion >> ~/.bashrc")
    .demandCommand(1, "Name a command: check, build, validate, serve, token, init, declarations or rules.")
    .recommendCommands()
    .strict()
    .help()
    .version(packageVersion())
    .fail((message, error) => {
      if (error) throw error;
      // An option only the config file gave: say it is the file's.
      const unknown = /^Unknown arguments?: (.+)$/.exec(message)?.[1]?.split(", ");
      if (config && unknown?.every((name) => name in config.options)) {
        io.err(`aps-gen: ${config.path}: ${unknown.map((n) => `"${n}"`).join(", ")} ${unknown.length === 1 ? "is no option" : "are no options"} of this command; see aps-gen <command> --help`);
        usageError = true;
        return;
      }
      io.err(`aps-gen: ${message}\nRun "aps-gen --help" for usage.`);
      usageError = true;
    })
    .exitProcess(false)
    .wrap(Math.min(110, process.stdout.columns ?? 100));
  await parser.parseAsync([...argv], {}, (err, _argv, output) => {
    if (output && !err) io.out(output);
  });
  return usageError ? ExitCode.unusable : exitCode;
}

async function runServe(options: CommonOptions & ServeOptions, io: Console, cwd: string): Promise<number> {
  const result = compileCleanOrReport("serve", ExitCode.findings, options, io, cwd);
  if (typeof result === "number") return result;
  // Say what is coming before the slow part: a first start creates the embedded database.
  const databaseUrl = options["database-url"] ?? process.env.DATABASE_URL;
  const firstStart = !databaseUrl && !existsSync(join(resolve(cwd, options.data), "pgdata", "PG_VERSION"));
  io.err(`starting the controller: ${plural(result.model.types.size, "type")} · ${databaseUrl ? "PostgreSQL" : firstStart ? `embedded database, created now in ${options.data} (first start: a few seconds)` : `embedded database in ${options.data}`}`);
  let controller: Awaited<ReturnType<typeof serveModel>>;
  try {
    controller = await serveModel(result.model, { ...options, data: resolve(cwd, options.data) }, cwd);
  } catch (error) {
    if (!(error instanceof ControllerStartError)) throw error;
    io.err(`aps-gen serve: ${error.message}`);
    return ExitCode.unusable;
  }
  io.err(`✓ controller on ${controller.url} · ${plural(result.model.types.size, "type")} · database ${controller.database}`);
  io.err(`  CA certificate: ${controller.caCertPath} (curl --cacert ${controller.caCertPath} ...)`);
  io.err(`  provider account ${controller.provider.accountId}; admin token in ${controller.provider.adminTokenPath}`);
  await new Promise<void>((stop) => {
    const onSignal = () => {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
      stop();
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
  io.err("stopping: finishing running requests");
  await controller.close();
  return ExitCode.ok;
}

async function runInit(dir: string, packageInput: string, options: CommonOptions, io: Console, cwd: string): Promise<number> {
  const result = compileCleanOrReport("init", ExitCode.findings, { ...options, types: [packageInput] }, io, cwd);
  if (typeof result === "number") return result;
  const pkg = result.model.packages.find((p) => !p.bundled && p.descriptor !== undefined);
  if (!pkg) {
    io.err(`aps-gen init: ${packageInput} has no APP-META.xml, so it is not an application package.`);
    return ExitCode.unusable;
  }
  const report = await initProject(result.model, pkg, resolve(cwd, dir), resolve(cwd, packageInput));
  for (const f of report.written) io.out(`  wrote  ${f}`);
  for (const f of report.kept) io.out(`  kept   ${f} (yours; not overwritten)`);
  for (const u of report.updated) {
    if (u.added.length) io.out(`  added  ${u.added.join(", ")} to ${u.file} (stubs; the rest of the file is as you left it)`);
    if (u.removed.length) io.out(`  note   ${u.file}: ${u.removed.join(", ")} ${u.removed.length === 1 ? "is" : "are"} no longer declared; left as ${u.removed.length === 1 ? "it is" : "they are"}, delete when done`);
  }
  for (const n of report.notes) io.out(`  note   ${n}`);
  for (const line of serviceSummary(result)) io.out(line);
  io.out(`✓ connector project for ${pkg.name} in ${dir}: cd ${dir} && npm install && npm start`);
  return ExitCode.ok;
}

async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function runValidate(options: CommonOptions & ValidateOptions, io: Console, cwd: string, stdin: () => Promise<string>): Promise<number> {
  const result = compileCleanOrReport("validate", ExitCode.unusable, options, io, cwd);
  if (typeof result === "number") return result;
  const outcome = await validateBody(result.model, options, cwd, stdin);
  for (const line of outcome.out) io.out(line);
  for (const line of outcome.err) io.err(line);
  return outcome.exitCode;
}

/** Compiles for a command that needs error-free declarations; prints the errors and returns `onErrors` otherwise. */
function compileCleanOrReport(command: string, onErrors: number, options: CommonOptions, io: Console, cwd: string): CompileResult | number {
  const result = compileOrReport(options, io, cwd);
  if (typeof result === "number" || !hasErrors(result.diagnostics, false)) return result;
  for (const d of result.diagnostics.filter((x) => x.severity === "error")) io.err(formatDiagnostic(d));
  // Say which packages lost services, as check does: an error may be a type that did not load at all.
  for (const line of serviceSummary(result)) io.err(line);
  io.err(`aps-gen ${command}: the declarations have errors (see above); fix them first.`);
  return onErrors;
}

/** The inputs a command reads: --types, else ./types when it exists, else the working folder. */
function inputsOf(options: CommonOptions, cwd: string): string[] {
  return options.types?.length ? options.types : [existsSync(resolve(cwd, "types")) ? "types" : "."];
}

function compileOrReport(options: CommonOptions, io: Console, cwd: string): CompileResult | number {
  const inputs = inputsOf(options, cwd);
  try {
    const result = compile(inputs, { cwd, includeCore: options.core });
    return options.rules?.size ? { ...result, diagnostics: applyRuleSettings(result.diagnostics, options.rules) } : result;
  } catch (error) {
    if (error instanceof InputError) {
      io.err(`aps-gen: ${error.message}`);
      return ExitCode.unusable;
    }
    throw error;
  }
}

function printDiagnostics(diagnostics: readonly Diagnostic[], options: CommonOptions, io: Console, cwd: string, extra: object = {}): void {
  if (options.format === "json") {
    io.out(JSON.stringify({ diagnostics, ...extra }, null, 2));
    return;
  }
  const paint = styleFor(options);
  const frames = (options.pretty ?? process.stdout.isTTY === true) ? new CodeFrames(cwd, paint.enabled) : undefined;
  for (const d of diagnostics) {
    const severity = d.severity === "error" ? paint.red(d.severity) : paint.yellow(d.severity);
    io.out(paint.enabled ? `${paint.cyan(d.file)}:${paint.yellow(String(d.line))}:${paint.yellow(String(d.col))} - ${severity} ${paint.dim(d.code)}: ${d.message}` : formatDiagnostic(d));
    const frame = frames?.frameOf(d);
    if (frame !== undefined) io.out(`${frame}\n`);
  }
}

/** Colours for a command's own output (stdout), as --color, NO_COLOR and the terminal say. */
function styleFor(options: { color?: boolean }): Style {
  return style(colourWanted(process.stdout, options.color));
}

/** `✓ ...` in green, `✗ ...` in red, when colour is on. */
function verdict(line: string, options: { color?: boolean }): string {
  const paint = styleFor(options);
  return line.startsWith("✓") ? `${paint.green("✓")}${line.slice(1)}` : line.startsWith("✗") ? `${paint.red("✗")}${line.slice(1)}` : line;
}

function counts(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const warnings = diagnostics.length - errors;
  return `${errors} error${errors === 1 ? "" : "s"} · ${warnings} warning${warnings === 1 ? "" : "s"}`;
}

function seconds(start: number): string {
  return `${((performance.now() - start) / 1000).toFixed(1)} s`;
}

function runCheck(options: CommonOptions, io: Console, cwd: string): number {
  const start = performance.now();
  const result = compileOrReport(options, io, cwd);
  if (typeof result === "number") return result;
  printDiagnostics(result.diagnostics, options, io, cwd);
  const failed = hasErrors(result.diagnostics, options["warn-as-error"]);
  const summary = `${failed ? "✗" : "✓"} ${plural(result.model.types.size, "type")} checked · ${counts(result.diagnostics)} · ${seconds(start)}`;
  for (const line of serviceSummary(result)) (options.format === "json" ? io.err : io.out)(line);
  (options.format === "json" ? io.err : io.out)(verdict(summary, options));
  return failed ? ExitCode.findings : ExitCode.ok;
}

function runBuild(options: CommonOptions & { out: string; check: boolean; "dry-run": boolean }, io: Console, cwd: string): number {
  const start = performance.now();
  const result = compileOrReport(options, io, cwd);
  if (typeof result === "number") return result;
  const print = options.format === "json" ? io.err : io.out;
  const say = (line: string) => print(verdict(line, options));
  const failed = hasErrors(result.diagnostics, options["warn-as-error"]);
  if (failed) {
    printDiagnostics(result.diagnostics, options, io, cwd);
    for (const line of serviceSummary(result)) say(line);
    say(`✗ build stopped: ${counts(result.diagnostics)}; nothing was written · ${seconds(start)}`);
    return ExitCode.findings;
  }
  // Long builds say where they are (the phases run in one go, so after each one).
  const progress = (what: string) => {
    if (performance.now() - start > 1000) io.err(`  ${what} · ${seconds(start)}`);
  };
  progress(`loaded and checked ${plural(result.model.types.size, "type")}`);
  const files = emitAll(result.model);
  progress(`generated ${plural(files.length, "file")}`);
  const outDir = resolve(cwd, options.out);
  const compareOnly = options.check || options["dry-run"];
  const report = (compareOnly ? compareHost(outDir) : diskHost(outDir)).apply(files);
  printDiagnostics(result.diagnostics, options, io, cwd, { files: files.map((f) => f.path), report });
  for (const line of serviceSummary(result)) say(line);
  const outName = `${options.out.replace(/\/$/, "")}/`;

  if (report.conflicts.length > 0) {
    for (const p of report.conflicts) say(`  conflict  ${outName}${p} has no aps-gen banner; it was not overwritten (move it away or delete it)`);
    say(`✗ build stopped: ${report.conflicts.length} hand-written file(s) in the way; nothing was written · ${seconds(start)}`);
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
  if (options["dry-run"]) listChanges(report, outName, say);
  const written = report.added.length + report.changed.length;
  const verb = options["dry-run"] ? "would write" : "written";
  say(`✓ ${plural(result.model.types.size, "type")} → ${outName} · ${plural(files.length, "file")} (${written} ${verb}, ${report.stale.length} stale ${options["dry-run"] ? "to delete" : "deleted"}) · ${seconds(start)}`);
  return ExitCode.ok;
}

function listChanges(report: OutputReport, outName: string, say: (line: string) => void): void {
  for (const p of report.added) say(`  missing   ${outName}${p}`);
  for (const p of report.changed) say(`  differs   ${outName}${p}`);
  for (const p of report.stale) say(`  stale     ${outName}${p}`);
}

/** One line per package with APP-META.xml: how many of its services loaded as types. */
function serviceSummary(result: CompileResult): string[] {
  return result.model.packages
    .filter((p) => !p.bundled && p.services)
    .map((p) => `  ${p.name}: ${p.services!.loaded} of ${plural(p.services!.declared, "service")} loaded`);
}

/** `1 type`, `2 types`. */
function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
