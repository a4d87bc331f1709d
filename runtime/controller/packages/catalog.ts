/**
 * The packages and types a controller serves: those it started with (`--types`) and those
 * imported while running (`POST /aps/2/packages`). Imported archives live in the database, so
 * every controller instance sharing it picks them up: on a miss (an unknown type or package)
 * and whenever packages or types are listed, a cheap query looks for archives it has not
 * compiled yet.
 */
import { inArray, not } from "drizzle-orm";
import { stringifyJson } from "../../common/json-text.ts";
import type { TypeValidator } from "../../common/type-validator.ts";
import { typeRegistry, type RegistryType, type TypeRegistry } from "../registry.ts";
import type { Db } from "../store/open-database.ts";
import { packages } from "../store/schema.ts";
import { readArchive } from "./archive-store.ts";
import type { PackageFiles } from "./package-files.ts";

/** A package as the controller lists it. */
export interface PackageRecord {
  readonly id: string;
  readonly appId: string;
  /** The package's slug (`cloudmail`, or the archive's base name); it names generated code and files. */
  readonly name: string;
  /** APP-META.xml `<name>`, the name the platform shows for the package. */
  readonly metaName?: string;
  readonly version: string;
  readonly release: string;
  readonly typeIds: readonly string[];
  /** `types` when it came with `--types`, `imported` when posted while running. */
  readonly origin: "types" | "imported";
  readonly files: PackageFiles;
}

/** What compiling a package archive gives. */
export interface CompiledPackage {
  readonly appId: string;
  readonly name: string;
  readonly metaName?: string;
  readonly version: string;
  readonly release: string;
  /** The package's own types, not the core types it was compiled with. */
  readonly types: readonly RegistryType[];
  readonly validators: ReadonlyMap<string, TypeValidator>;
  readonly files: PackageFiles;
}

/** One finished step of compiling a package: its name, how long it took and what it counted. */
export interface CompileStep {
  readonly phase: string;
  readonly ms: number;
  readonly counts?: Readonly<Record<string, number>>;
}

/**
 * Checks and compiles an archive; throws `PackageRejected` listing diagnostics when it has errors
 * and `ArchiveTooLarge` (common/bounded-unzip.ts) when it inflates past the bounds. `progress` is
 * told each step as it ends: a large package takes seconds, and the log shows where they go.
 */
export type PackageCompiler = (
  archive: Uint8Array,
  label: string,
  progress?: (step: CompileStep) => void,
) => Promise<CompiledPackage>;

/** A package archive whose declarations have errors. */
export class PackageRejected extends Error {
  constructor(readonly diagnostics: readonly string[]) {
    super(`the package has ${diagnostics.length} error(s)`);
    this.name = "PackageRejected";
  }
}

export class PackageCatalog {
  private types: TypeRegistry;
  private validatorMap: Map<string, TypeValidator>;
  private readonly records = new Map<string, PackageRecord>();
  private refreshing?: Promise<void>;

  constructor(
    private readonly db: Db,
    initialTypes: readonly RegistryType[],
    initialValidators: ReadonlyMap<string, TypeValidator>,
    initialPackages: readonly PackageRecord[],
    private readonly compiler: PackageCompiler | undefined,
  ) {
    this.types = typeRegistry(initialTypes);
    this.validatorMap = new Map(initialValidators);
    for (const p of initialPackages) this.records.set(p.id, p);
  }

  get registry(): TypeRegistry {
    return this.types;
  }

  get validators(): ReadonlyMap<string, TypeValidator> {
    return this.validatorMap;
  }

  list(): PackageRecord[] {
    return [...this.records.values()];
  }

  get(id: string): PackageRecord | undefined {
    return this.records.get(id);
  }

  /** Compiles archives other instances imported since this one last looked. */
  async refresh(): Promise<void> {
    if (!this.compiler) return;
    // One refresh at a time; callers arriving meanwhile wait for it.
    this.refreshing ??= this.loadNew().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /**
   * Type ids of `compiled` that another package already serves (an import must not replace them).
   * A newer version of an application keeps the types it did not change under their ids (a type's
   * id carries its own version, https://docs.cloudblue.com/cbc/sdk/21.0/api/rest/application/upgrade),
   * so a type declared again by a package of the same application, exactly as it was, is no conflict.
   */
  conflicts(compiled: CompiledPackage): string[] {
    return compiled.types
      .filter((t) => this.types.has(t.id) && !this.sameApplicationType(compiled.appId, t))
      .map((t) => t.id);
  }

  /** Every package that declares a type: one, or several versions of one application. */
  declaring(typeId: string): PackageRecord[] {
    return this.list().filter((p) => p.typeIds.includes(typeId));
  }

  private sameApplicationType(appId: string, type: RegistryType): boolean {
    const known = this.types.get(type.id);
    if (!known || !this.declaring(type.id).some((p) => p.appId === appId)) return false;
    // The package slug differs between an archive and its folder; the declaration itself must not.
    const { packageName: _a, ...was } = known;
    const { packageName: _b, ...now } = type;
    // stringifyJson: a declaration may hold 64-bit integers (bigint), which JSON.stringify refuses.
    return stringifyJson(was) === stringifyJson(now);
  }

  /** Makes a compiled package's types usable; the registry is replaced whole, never changed in place. */
  add(id: string, compiled: CompiledPackage): PackageRecord {
    const record: PackageRecord = {
      id,
      appId: compiled.appId,
      name: compiled.name,
      ...(compiled.metaName !== undefined ? { metaName: compiled.metaName } : {}),
      version: compiled.version,
      release: compiled.release,
      typeIds: compiled.types.map((t) => t.id),
      origin: "imported",
      files: compiled.files,
    };
    const types = new Map(this.types);
    const validators = new Map(this.validatorMap);
    for (const t of compiled.types) {
      types.set(t.id, t);
      const v = compiled.validators.get(t.id);
      if (v) validators.set(t.id, v);
    }
    this.types = types;
    this.validatorMap = validators;
    this.records.set(id, record);
    return record;
  }

  private async loadNew(): Promise<void> {
    const known = [...this.records.keys()];
    const rows = await this.db
      .select({ id: packages.id, name: packages.name })
      .from(packages)
      .where(known.length ? not(inArray(packages.id, known)) : undefined)
      .orderBy(packages.imported);
    for (const row of rows) {
      // An import of this instance may have finished since the query.
      if (this.records.has(row.id)) continue;
      try {
        const archive = await readArchive(this.db, row.id);
        if (archive) this.add(row.id, await this.compiler!(archive, row.name));
      } catch {
        // It was checked when imported; a package that no longer compiles here stays unknown.
      }
    }
  }
}
