import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { unzipBounded } from "../../../runtime/common/bounded-unzip.ts";
import {
  PackageRejected,
  type CompiledPackage,
  type CompileStep,
  type PackageRecord,
} from "../../../runtime/controller/packages/catalog.ts";
import { archiveFiles, folderFiles } from "../../../runtime/controller/packages/package-files.ts";
import {
  buildRegistry,
  compile,
  formatDiagnostic,
  type ApsModel,
  type ModelPackage,
} from "../../../generator/index.ts";
import {
  compileValidatorScripts,
  instantiateValidatorScripts,
  type ValidatorScript,
} from "../../validate/load-validators.ts";

/**
 * Checks and compiles a package archive posted to a running controller, with the same code as
 * `aps-gen check` and `build`: the core types are loaded with it, its own types are returned.
 * Diagnostics name files inside the archive (`<label>.app.zip/schemas/x.schema:12:7`). This runs
 * it all on the calling thread; a controller uses compileArchiveInWorker (worker-compiler.ts).
 */
export async function compileArchive(
  archive: Uint8Array,
  label: string,
  progress?: (step: CompileStep) => void,
): Promise<CompiledPackage> {
  return loadCompiledArchive(archive, await compileArchiveData(archive, label, progress), progress);
}

/** A compiled archive before its validators are loaded: plain data, which a worker thread can hand over. */
export interface CompiledArchive extends Omit<CompiledPackage, "validators" | "files"> {
  /** Its types' validators as scripts, to run where they are used. */
  readonly validators: readonly ValidatorScript[];
}

/**
 * The part of compiling an archive that needs no live objects (most of the time it takes):
 * unzip, check, registry and validator modules. Throws `ArchiveTooLarge` or `PackageRejected`.
 */
export async function compileArchiveData(
  archive: Uint8Array,
  label: string,
  progress?: (step: CompileStep) => void,
): Promise<CompiledArchive> {
  const lap = stopwatch(progress);
  // Before anything reads it: a bomb is refused as too large, not as an unreadable archive.
  const entries = Object.keys(unzipBounded(archive)).filter((n) => !n.endsWith("/")).length;
  lap("unzip", { files: entries, bytes: archive.length });
  const dir = mkdtempSync(join(tmpdir(), "aps-gen-import-"));
  try {
    const file = `${label}.app.zip`;
    writeFileSync(join(dir, file), archive);
    const { model, diagnostics } = compile([file], { cwd: dir });
    const errors = diagnostics.filter((d) => d.severity === "error");
    const pkg = model.packages.find((p) => !p.bundled);
    lap("compile", {
      types: pkg?.typeIds.length ?? 0,
      errors: errors.length,
      warnings: diagnostics.length - errors.length,
    });
    if (errors.length) throw new PackageRejected(errors.map(formatDiagnostic));
    if (!pkg || pkg.typeIds.length === 0)
      throw new PackageRejected([`${file}: the archive declares no types (is APP-META.xml at its root?)`]);
    const own = new Set(pkg.typeIds);
    const types = buildRegistry(model).filter((t) => own.has(t.id));
    lap("registry", { types: types.length });
    const validators = await compileValidatorScripts(model);
    lap("validators", { modules: validators.length, bytes: validators.reduce((sum, v) => sum + v.code.length, 0) });
    return {
      appId: pkg.appId ?? pkg.name,
      name: pkg.name,
      ...(pkg.metaName !== undefined ? { metaName: pkg.metaName } : {}),
      version: pkg.version ?? "",
      release: pkg.release ?? "",
      types,
      validators,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the validators of a compiled archive on the thread that will use them. */
export async function loadCompiledArchive(
  archive: Uint8Array,
  data: CompiledArchive,
  progress?: (step: CompileStep) => void,
): Promise<CompiledPackage> {
  const lap = stopwatch(progress);
  const validators = await instantiateValidatorScripts(data.validators, new Set(data.types.map((t) => t.id)));
  lap("load", { validators: validators.size });
  const { validators: _scripts, ...rest } = data;
  return { ...rest, validators, files: archiveFiles(archive) };
}

/** Reports each step with the time since the previous one (or since it was made). */
function stopwatch(
  progress: ((step: CompileStep) => void) | undefined,
): (phase: string, counts?: Record<string, number>) => void {
  let last = performance.now();
  return (phase, counts) => {
    const now = performance.now();
    progress?.({ phase, ms: Math.round(now - last), ...(counts ? { counts } : {}) });
    last = now;
  };
}

/** The packages a controller starts with (`--types`), with stable ids derived from their names. */
export function startPackages(model: ApsModel, cwd: string): PackageRecord[] {
  return model.packages
    .filter((p) => !p.bundled)
    .map((p) => ({
      id: stableId(p.appId ?? p.name),
      appId: p.appId ?? p.name,
      name: p.name,
      ...(p.metaName !== undefined ? { metaName: p.metaName } : {}),
      version: p.version ?? "",
      release: p.release ?? "",
      typeIds: p.typeIds,
      origin: "types" as const,
      files: filesOf(p, cwd),
    }));
}

function filesOf(p: ModelPackage, cwd: string) {
  const abs = resolve(cwd, p.root);
  return /\.zip$/i.test(abs) ? archiveFiles(readFileSync(abs)) : folderFiles(abs);
}

/** A UUID-shaped id from a name (SHA-1, version-5 layout), so a package keeps its id across restarts. */
function stableId(name: string): string {
  const h = createHash("sha1").update(`aps-gen package ${name}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}
