import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PackageRejected, type CompiledPackage, type PackageRecord } from "../runtime/controller/packages/catalog.ts";
import { archiveFiles, folderFiles } from "../runtime/controller/packages/package-files.ts";
import { formatDiagnostic } from "./diagnostics/diagnostic.ts";
import { buildRegistry } from "./emit/controller/registry-data.ts";
import { loadValidators } from "./load-validators.ts";
import type { ApsModel, ModelPackage } from "./model/model.ts";
import { compile } from "./pipeline.ts";

/**
 * Checks and compiles a package archive posted to a running controller, with the same code as
 * `aps-gen check` and `build`: the core types are loaded with it, its own types are returned.
 * Diagnostics name files inside the archive (`<label>.app.zip/schemas/x.schema:12:7`).
 */
export async function compileArchive(archive: Uint8Array, label: string): Promise<CompiledPackage> {
  const dir = mkdtempSync(join(tmpdir(), "aps-gen-import-"));
  try {
    const file = `${label}.app.zip`;
    writeFileSync(join(dir, file), archive);
    const { model, diagnostics } = compile([file], { cwd: dir });
    const errors = diagnostics.filter((d) => d.severity === "error");
    if (errors.length) throw new PackageRejected(errors.map(formatDiagnostic));
    const pkg = model.packages.find((p) => !p.bundled);
    if (!pkg || pkg.typeIds.length === 0) throw new PackageRejected([`${file}: the archive declares no types (is APP-META.xml at its root?)`]);
    const own = new Set(pkg.typeIds);
    const validators = await loadValidators(model);
    return {
      appId: pkg.appId ?? pkg.name,
      name: pkg.name,
      ...(pkg.metaName !== undefined ? { metaName: pkg.metaName } : {}),
      version: pkg.version ?? "",
      release: pkg.release ?? "",
      types: buildRegistry(model).filter((t) => own.has(t.id)),
      validators: new Map([...validators].filter(([id]) => own.has(id))),
      files: archiveFiles(archive),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
