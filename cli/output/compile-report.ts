import { existsSync } from "node:fs";
import { resolve } from "node:path";
import {
  allCodes,
  applyRuleSettings,
  formatDiagnostic,
  hasErrors,
  type Diagnostic,
} from "../../generator/diagnostics.ts";
import { compile, InputError, type CompileResult } from "../../generator/pipeline.ts";
import { CodeFrames } from "./code-frame.ts";
import type { CommonOptions } from "../options/command-context.ts";
import { ExitCode, plural, type Console } from "./console.ts";
import { githubAnnotation } from "./github-annotations.ts";
import { packageInfo } from "./package-info.ts";
import { sarifLog } from "./sarif-log.ts";
import { colourWanted, style, type Style } from "./terminal-style.ts";

/**
 * Compiling the declarations for a command and reporting what came of it: the part every
 * command that reads declarations shares.
 */

/** The inputs a command reads: --types, else ./types when it exists, else the working folder. */
export function inputsOf(options: CommonOptions, cwd: string): string[] {
  return options.types?.length ? options.types : [existsSync(resolve(cwd, "types")) ? "types" : "."];
}

/**
 * What `serve` reads: --types (or the config's `types`), else ./types when it exists, else no
 * folder at all: the core types alone. Unlike check and build, serve never searches the working
 * folder, which may be anything (a home folder, /tmp, another project's checkout) and whose
 * declarations, test fixtures among them, are nobody's to serve. Without --types, `looked` is
 * the one line that says where it looked.
 */
export function serveInputs(options: CommonOptions, cwd: string): { inputs: string[]; looked?: string } {
  if (options.types?.length) return { inputs: options.types };
  if (existsSync(resolve(cwd, "types"))) return { inputs: ["types"], looked: "no --types given: serving ./types" };
  const what = options.core ? "the core types only" : "no types (--no-core)";
  return {
    inputs: [],
    looked: `no --types given and no ./types in ${cwd}: serving ${what}; name declarations with --types <folder or .app.zip>`,
  };
}

/** Compiles the inputs; an unusable input is reported in one line and returns exit code 2. */
export function compileOrReport(
  options: CommonOptions,
  io: Console,
  cwd: string,
  inputs: readonly string[] = inputsOf(options, cwd),
): CompileResult | number {
  try {
    const result = compile(inputs, { cwd, includeCore: options.core });
    return options.rules?.size
      ? { ...result, diagnostics: applyRuleSettings(result.diagnostics, options.rules) }
      : result;
  } catch (error) {
    if (error instanceof InputError) {
      io.err(`aps-gen: ${error.message}`);
      return ExitCode.unusable;
    }
    throw error;
  }
}

/** Compiles for a command that needs error-free declarations; prints the errors and returns `onErrors` otherwise. */
export function compileCleanOrReport(
  command: string,
  onErrors: number,
  options: CommonOptions,
  io: Console,
  cwd: string,
  inputs?: readonly string[],
): CompileResult | number {
  const result = compileOrReport(options, io, cwd, inputs);
  if (typeof result === "number" || !hasErrors(result.diagnostics, false)) return result;
  for (const d of result.diagnostics.filter((x) => x.severity === "error")) io.err(formatDiagnostic(d));
  // Say which packages lost services, as check does: an error may be a type that did not load at all.
  for (const line of serviceSummary(result)) io.err(line);
  io.err(`aps-gen ${command}: the declarations have errors (see above); fix them first.`);
  return onErrors;
}

/**
 * Prints a compile's diagnostics on stdout in the format asked for: text lines (with code frames
 * on a terminal), one JSON document, a SARIF log, or GitHub workflow commands (docs/ci.md).
 * `extra` goes into the JSON document beside the diagnostics (build: its files and report).
 */
export function printDiagnostics(
  result: CompileResult,
  options: CommonOptions,
  io: Console,
  cwd: string,
  extra: object = {},
): void {
  const { diagnostics } = result;
  if (options.format === "json") {
    io.out(JSON.stringify({ diagnostics, summary: summaryOf(result), ...extra }, null, 2));
    return;
  }
  if (options.format === "sarif") {
    io.out(JSON.stringify(sarifLog(diagnostics, allCodes, packageInfo()), null, 2));
    return;
  }
  if (options.format === "github") {
    for (const d of diagnostics) io.out(githubAnnotation(d));
    return;
  }
  const paint = styleFor(options);
  const frames = (options.pretty ?? process.stdout.isTTY === true) ? new CodeFrames(cwd, paint.enabled) : undefined;
  for (const d of diagnostics) {
    const severity = d.severity === "error" ? paint.red(d.severity) : paint.yellow(d.severity);
    io.out(
      paint.enabled
        ? `${paint.cyan(d.file)}:${paint.yellow(String(d.line))}:${paint.yellow(String(d.col))} - ${severity} ${paint.dim(d.code)}: ${d.message}`
        : formatDiagnostic(d),
    );
    const frame = frames?.frameOf(d);
    if (frame !== undefined) io.out(`${frame}\n`);
  }
}

/** The `summary` of `--format json`: how many types were checked and what was found. */
function summaryOf(result: CompileResult): { types: number; errors: number; warnings: number } {
  const errors = result.diagnostics.filter((d) => d.severity === "error").length;
  return { types: result.model.types.size, errors, warnings: result.diagnostics.length - errors };
}

/** Where a command's own lines (summary, verdict) go: stdout for text, else stderr, so stdout is the document alone. */
export function humanLines(options: CommonOptions, io: Console): (line: string) => void {
  return options.format === "text" ? io.out : io.err;
}

/** Colours for a command's own output (stdout), as --color, NO_COLOR and the terminal say. */
function styleFor(options: { color?: boolean }): Style {
  return style(colourWanted(process.stdout, options.color));
}

/** `✓ ...` in green, `✗ ...` in red, when colour is on. */
export function verdict(line: string, options: { color?: boolean }): string {
  const paint = styleFor(options);
  return line.startsWith("✓")
    ? `${paint.green("✓")}${line.slice(1)}`
    : line.startsWith("✗")
      ? `${paint.red("✗")}${line.slice(1)}`
      : line;
}

export function counts(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const warnings = diagnostics.length - errors;
  return `${plural(errors, "error")} · ${plural(warnings, "warning")}`;
}

export function seconds(start: number): string {
  return `${((performance.now() - start) / 1000).toFixed(1)} s`;
}

/** One line per package with APP-META.xml: how many of its services loaded as types. */
export function serviceSummary(result: CompileResult): string[] {
  return result.model.packages
    .filter((p) => !p.bundled && p.services)
    .map((p) => `  ${p.name}: ${p.services!.loaded} of ${plural(p.services!.declared, "service")} loaded`);
}
