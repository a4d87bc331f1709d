import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import ts from "typescript";
import { repoRoot } from "./paths.ts";

const OPTIONS: ts.CompilerOptions = {
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
  paths: {
    "aps-gen/runtime/*": [join(repoRoot, "runtime/*.ts")],
    "aps-gen/client": [join(repoRoot, "runtime/client/index.ts")],
  },
};

/**
 * Type-checks TypeScript files written outside the repository with the project's strict
 * settings, resolving `aps-gen/runtime/...` and `aps-gen/client` to this checkout. Returns formatted errors.
 */
export function typecheck(files: readonly string[]): string[] {
  const program = ts.createProgram(files, OPTIONS, cachingHost(OPTIONS));
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where =
      d.file && d.start !== undefined
        ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: `
        : "";
    return where + ts.flattenDiagnosticMessageText(d.messageText, "\n");
  });
}

/** Writes generated files (paths below the output folder) into `outDir` and type-checks them all. */
export function typecheckEmitted(
  files: readonly { readonly path: string; readonly content: string }[],
  outDir: string,
): string[] {
  const written = files.map((f) => {
    const abs = join(outDir, f.path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, f.content);
    return abs;
  });
  return typecheck(written);
}

/**
 * Syntax trees of the files every program here reads and no test writes (TypeScript's
 * libraries, node_modules, this checkout's runtime), parsed once per test worker: parsing them
 * again was most of what each of the type-checks of a run cost. Each program still checks its
 * own types; only the trees are shared, as TypeScript's language service shares them.
 */
const parsed = new Map<string, ts.SourceFile>();

/** A compiler host for `options` that takes those trees from the cache. */
export function cachingHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const runtime = `${join(repoRoot, "runtime")}/`;
  const shared = (fileName: string) => fileName.includes("/node_modules/") || fileName.startsWith(runtime);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (!shared(fileName)) return getSourceFile(fileName, languageVersion, onError, shouldCreate);
    const key = `${fileName}\0${typeof languageVersion === "object" ? JSON.stringify(languageVersion) : languageVersion}`;
    let file = parsed.get(key);
    if (!file) {
      file = getSourceFile(fileName, languageVersion, onError, shouldCreate);
      if (file) parsed.set(key, file);
    }
    return file;
  };
  return host;
}
