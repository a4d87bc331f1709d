import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { formatDiagnostic, hasErrors, sortDiagnostics, type Diagnostic } from "./check/diagnostic.ts";
import { loadInputs } from "./load/load-inputs.ts";
import { schemaGenText } from "./load/php/php-service.ts";

/** What `aps-gen declarations` produced: one `.schema.gen` text per PHP-declared service. */
export interface DeclarationsOutcome {
  readonly files: readonly { readonly service: string; readonly name: string; readonly text: string }[];
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Reads a package and returns, for every service whose type is declared in PHP, the JSON
 * declaration `aps build` would write as `schemas/<service>.schema.gen`. Services that already
 * have a JSON schema file are left out: there is nothing to convert.
 */
export function phpDeclarations(packageInput: string, cwd: string): DeclarationsOutcome {
  const loaded = loadInputs([packageInput], { cwd, includeCore: false });
  const files = loaded.packages.flatMap((p) =>
    p.documents.flatMap((d) => (d.php && d.service !== undefined ? [{ service: d.service, name: `${d.service}.schema.gen`, text: schemaGenText(d.php) }] : [])),
  );
  return { files, diagnostics: sortDiagnostics(loaded.diagnostics) };
}

/**
 * `aps-gen declarations <package> [--out <dir>]`: writes the files into `dir`, or prints them
 * when no folder is given. Returns the exit code: 1 when a service's type did not load.
 */
export function runDeclarations(packageInput: string, out: string | undefined, cwd: string, io: { out(line: string): void; err(line: string): void }): number {
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
  io.err(`${failed ? "✗" : "✓"} ${files.length} PHP-declared service${files.length === 1 ? "" : "s"} written as JSON declarations`);
  return failed ? 1 : 0;
}
