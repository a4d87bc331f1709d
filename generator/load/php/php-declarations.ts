import { sortDiagnostics, type Diagnostic } from "../../diagnostics/diagnostic.ts";
import { loadInputs } from "../load-inputs.ts";
import { schemaGenText } from "./php-service.ts";

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
    p.documents.flatMap((d) =>
      d.php && d.service !== undefined
        ? [{ service: d.service, name: `${d.service}.schema.gen`, text: schemaGenText(d.php) }]
        : [],
    ),
  );
  return { files, diagnostics: sortDiagnostics(loaded.diagnostics) };
}
