import { readdirSync, realpathSync } from "node:fs";
import { basename, join, relative, resolve, sep } from "node:path";
import { packageRoot } from "../../runtime/common/package-root.ts";
import { Codes } from "../diagnostics/codes.ts";
import { DiagnosticSink, type Diagnostic } from "../diagnostics/diagnostic.ts";
import { parseAppMeta, type AppMeta } from "./app-meta.ts";
import { parseJsonDocument, type JsonDocument } from "./json-document.ts";
import {
  archiveBaseName,
  displayPath,
  entryKind,
  folderSource,
  InputError,
  zipSource,
  type PackageSource,
} from "./package-source.ts";
import { PhpFileCache } from "./php/php-program.ts";
import { dedupingSink, readPhpService, type PhpDeclaration } from "./php/php-service.ts";
import { createSourceFile, fileLoc } from "./source-file.ts";

/** A package as loaded: its descriptor (if any) and its parsed declaration files. */
export interface LoadedPackage {
  /** Slug naming the package in output paths: `core`, `examples/cloudmail`, `myapp`. */
  readonly name: string;
  /** Display path of the folder or archive. */
  readonly root: string;
  /** True for the core types bundled with aps-gen. */
  readonly bundled: boolean;
  readonly meta?: AppMeta;
  readonly documents: readonly LoadedDocument[];
}

/** One declaration of a package: a JSON file, or the type a service declares in PHP. */
interface LoadedDocument {
  readonly doc: JsonDocument;
  readonly service?: string;
  /** Set when the declaration was read from PHP annotations rather than a JSON file. */
  readonly php?: PhpDeclaration;
}

/** Everything `--types` pointed at, plus the bundled core types. */
export interface LoadResult {
  readonly packages: readonly LoadedPackage[];
  readonly diagnostics: readonly Diagnostic[];
}

/** Options of loadInputs. */
export interface LoadOptions {
  /** Base for relative inputs and display paths. Default: process.cwd(). */
  readonly cwd?: string;
  /** Load the bundled core types first. Default: true. */
  readonly includeCore?: boolean;
  /**
   * Texts to read in place of files on disk, by absolute path: the unsaved documents of an
   * editor (aps-gen lsp). Files must still exist on disk to be found.
   */
  readonly overlay?: ReadonlyMap<string, string>;
}

/** Where the core types bundled with aps-gen live. */
const BUNDLED_CORE_DIR = join(packageRoot(import.meta.url), "types", "core");

const SCHEMA_FILE = /\.(schema|schema\.gen|schema\.json)$/;
const SKIPPED_DIRS = new Set(["node_modules", "generated"]);

/**
 * Loads every package named by `inputs`: a package folder (with APP-META.xml), an `.app.zip`,
 * a single declaration file, or a folder to search for packages and plain declarations.
 * Throws InputError when an input does not exist or cannot be read at all.
 */
export function loadInputs(inputs: readonly string[], options: LoadOptions = {}): LoadResult {
  const cwd = options.cwd ?? process.cwd();
  const sink = new DiagnosticSink();
  const packages: LoadedPackage[] = [];
  const coreReal = realpathSync(BUNDLED_CORE_DIR);
  const seenDirs = new Set<string>();

  const addFolderPackage = (abs: string, name: string) => {
    const real = realpathSync(abs);
    if (seenDirs.has(real)) return;
    seenDirs.add(real);
    packages.push(
      loadPackage(folderSource(abs, displayPath(abs, cwd), options.overlay), name, real === coreReal, sink),
    );
  };

  if (options.includeCore !== false) addFolderPackage(BUNDLED_CORE_DIR, "core");

  for (const input of inputs) {
    const abs = resolve(cwd, input);
    const kind = entryKind(abs);
    if (kind === undefined) throw new InputError(`${input}: no such file or directory.`);
    if (kind === "file") {
      if (/\.zip$/i.test(abs)) {
        packages.push(loadPackage(zipSource(abs, displayPath(abs, cwd)), archiveBaseName(abs), false, sink));
      } else if (SCHEMA_FILE.test(abs) || abs.endsWith(".json")) {
        packages.push(loadSingleFile(abs, cwd, sink, options.overlay));
      } else {
        throw new InputError(`${input}: expected a package folder, an .app.zip, or a .schema/.schema.gen file.`);
      }
      continue;
    }
    for (const found of discoverPackages(abs)) {
      const rel = relative(abs, found).split(sep).join("/");
      addFolderPackage(found, rel === "" ? basename(abs) : rel);
    }
  }
  return { packages: uniqueNames(packages), diagnostics: sink.items };
}

/**
 * Finds package roots under a folder: a folder with APP-META.xml is one package (not searched
 * further); any other folder holding declaration files is a plain package of its own.
 */
function discoverPackages(absRoot: string): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true });
    if (entries.some((e) => e.isFile() && e.name === "APP-META.xml")) {
      found.push(dir);
      return;
    }
    if (entries.some((e) => e.isFile() && SCHEMA_FILE.test(e.name))) found.push(dir);
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory() && !e.name.startsWith(".") && !SKIPPED_DIRS.has(e.name)) visit(join(dir, e.name));
    }
  };
  visit(absRoot);
  return found;
}

/** Loads one package: through APP-META.xml when it has one, else every declaration file in it. */
function loadPackage(source: PackageSource, name: string, bundled: boolean, sink: DiagnosticSink): LoadedPackage {
  const metaText = source.read("APP-META.xml");
  if (metaText === undefined) {
    const documents = source
      .list()
      // Nested folders of a plain folder are packages of their own (see discoverPackages).
      .filter((f) => SCHEMA_FILE.test(f) && (source.kind === "zip" || !f.includes("/")))
      .map((f) => ({ doc: parseJsonDocument(createSourceFile(source.display(f), source.read(f) ?? ""), sink) }));
    return { name, root: source.root, bundled, documents };
  }
  const meta = parseAppMeta(createSourceFile(source.display("APP-META.xml"), metaText), sink);
  const documents: LoadedDocument[] = [];
  const phpSink = dedupingSink(sink);
  const phpFiles = new PhpFileCache(source);
  for (const service of meta?.services ?? []) {
    const php = service.phpCode && { ...service.phpCode, rel: normaliseRelative(service.phpCode.path) };
    const readPhp = () => {
      if (php?.rel === undefined) {
        sink.report(
          Codes.serviceTypeMissing,
          php?.loc ?? service.loc,
          php
            ? `<code path="${php.path}"> of service "${service.id}" points outside the package, and the service has no <schema>; its type cannot load.`
            : `service "${service.id}" names neither a <schema path> nor PHP code (<code engine="php" path>), so its type cannot load; add the schema file or the PHP script that declares the type.`,
        );
        return;
      }
      const declaration = readPhpService(source, php.rel, { id: service.id, loc: php.loc }, phpSink, phpFiles);
      if (declaration) documents.push({ doc: declaration.doc, service: service.id, php: declaration });
    };
    // A source package before "aps build": no <schema>, or one naming a file not built yet.
    if (!service.schemaPath) {
      readPhp();
      continue;
    }
    const rel = normaliseRelative(service.schemaPath);
    const text = rel === undefined ? undefined : source.read(rel);
    if ((rel === undefined || text === undefined) && php?.rel !== undefined && phpFiles.has(php.rel)) {
      readPhp();
      continue;
    }
    if (rel === undefined || text === undefined) {
      sink.report(
        Codes.schemaFileMissing,
        service.schemaLoc ?? service.loc,
        rel === undefined
          ? `<schema path="${service.schemaPath}"> points outside the package; use a path inside it such as schemas/${service.id}.schema.`
          : `schema file "${service.schemaPath}" of service "${service.id}" does not exist in ${source.root}; run "aps build" to produce it or fix the path.`,
      );
      continue;
    }
    documents.push({ doc: parseJsonDocument(createSourceFile(source.display(rel), text), sink), service: service.id });
  }
  reportIdeModel(source, meta?.services.length ?? 0, documents.length, sink);
  return { name, root: source.root, bundled, ...(meta && { meta }), documents };
}

/**
 * `model.types` is the APS IDE's type diagram (EMF XMI), from which the IDE writes PHP class
 * skeletons. It is not read as declarations: `aps build` ignores it (the types come from the PHP),
 * and it lacks most of a declaration. In the 4 found in public packages: 137 properties with no
 * title, default, enum, unit, format, access or encryption, arrays without items and structure
 * types (custom_counter) declared nowhere; 32 operations without parameters or responses, 25 of
 * them without a path. When services did not load, say so at the file a vendor might expect to count.
 */
function reportIdeModel(source: PackageSource, declared: number, loaded: number, sink: DiagnosticSink): void {
  if (loaded >= declared || source.read(IDE_MODEL) === undefined) return;
  sink.report(
    Codes.ideModelNotRead,
    fileLoc(source.display(IDE_MODEL)),
    `${declared - loaded} of ${declared} services did not load, and this APS IDE model is not read in their place: it is the IDE's diagram from which PHP skeletons are written, aps build ignores it, and it lacks titles, defaults, enums, units, access, structures, operation paths, parameters and responses. Add the PHP scripts the <code path>s name (or the built .schema.gen files).`,
  );
}

function loadSingleFile(
  abs: string,
  cwd: string,
  sink: DiagnosticSink,
  overlay?: ReadonlyMap<string, string>,
): LoadedPackage {
  const dir = join(abs, "..");
  const source = folderSource(dir, displayPath(dir, cwd), overlay);
  const rel = basename(abs);
  const text = source.read(rel);
  if (text === undefined) throw new InputError(`${displayPath(abs, cwd)}: cannot read the file.`);
  const name = rel.replace(SCHEMA_FILE, "").replace(/\.json$/, "");
  return {
    name,
    root: source.root,
    bundled: false,
    documents: [{ doc: parseJsonDocument(createSourceFile(source.display(rel), text), sink) }],
  };
}

/** The APS IDE's model of a package's types, beside APP-META.xml. */
const IDE_MODEL = "model.types";

/** Resolves `./schemas/x` and rejects paths that climb out of the package. */
function normaliseRelative(path: string): string | undefined {
  const parts: string[] = [];
  for (const seg of path.replace(/\\/g, "/").split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.length ? parts.join("/") : undefined;
}

/** Two inputs with the same basename must still write to different output folders. */
function uniqueNames(packages: LoadedPackage[]): LoadedPackage[] {
  const used = new Map<string, number>();
  return packages.map((p) => {
    const n = used.get(p.name) ?? 0;
    used.set(p.name, n + 1);
    return n === 0 ? p : { ...p, name: `${p.name}-${n + 1}` };
  });
}
