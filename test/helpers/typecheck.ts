import { join } from "node:path";
import ts from "typescript";
import { repoRoot } from "./paths.ts";

/**
 * Type-checks TypeScript files written outside the repository with the project's strict
 * settings, resolving `aps-gen/runtime/...` and `aps-gen/client` to this checkout. Returns formatted errors.
 */
export function typecheck(files: readonly string[]): string[] {
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2023.d.ts"],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    // Generated connectors import the connector runtime, which uses Node's types.
    types: ["node"],
    typeRoots: [join(repoRoot, "node_modules/@types")],
    // The generated client index re-exports `aps-gen/client`, the runtime's own entry point.
    paths: { "aps-gen/runtime/*": [join(repoRoot, "runtime/*.ts")], "aps-gen/client": [join(repoRoot, "runtime/client/index.ts")] },
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : "";
    return where + ts.flattenDiagnosticMessageText(d.messageText, "\n");
  });
}
