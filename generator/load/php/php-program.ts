import { createRequire } from "node:module";
import type { Engine } from "php-parser";
import { Codes } from "../../diagnostics/codes.ts";
import type { DiagnosticSink } from "../../diagnostics/diagnostic.ts";
import type { PackageSource } from "../package-source.ts";
import { createSourceFile, fileLoc, locAt, type Loc, type SourceFile } from "../source-file.ts";
import type { DocComment } from "./doc-tags.ts";
import { closeSpacedNames } from "./spaced-names.ts";

/**
 * A node of php-parser's AST, typed loosely on purpose: the loader reads a handful of node
 * kinds and checks `kind` before touching anything else.
 */
export interface PhpNode {
  readonly kind: string;
  readonly loc?: { readonly start: { readonly offset: number } } | null;
  readonly leadingComments?:
    | readonly { readonly kind: string; readonly value: string; readonly offset: number }[]
    | null;
  readonly [key: string]: unknown;
}

/** A `public $x = ...;` of a class, with the doc comment right before it. */
export interface PhpProperty {
  readonly name: string;
  readonly loc: Loc;
  readonly doc?: DocComment;
  /** The initializer expression, when there is one. */
  readonly initializer?: PhpNode;
  readonly initializerLoc?: Loc;
  readonly isPublic: boolean;
  readonly isStatic: boolean;
}

/** A method of a class: its doc comment and its PHP parameter names, in order. */
export interface PhpMethod {
  readonly name: string;
  readonly loc: Loc;
  readonly doc?: DocComment;
  readonly parameters: readonly { readonly name: string; readonly loc: Loc }[];
}

/** A class declared in the script or a file it includes. */
export interface PhpClass {
  /** The short name, without namespace: what `aps build` writes as `name`. */
  readonly name: string;
  readonly loc: Loc;
  readonly file: SourceFile;
  /** The parent class name as written, with any leading `\` and namespace kept. */
  readonly extendsName?: string;
  readonly doc?: DocComment;
  readonly properties: readonly PhpProperty[];
  readonly methods: readonly PhpMethod[];
  readonly constants: ReadonlyMap<string, PhpNode>;
}

/** Every class and global constant of a script and the files it includes, in declaration order. */
export interface PhpProgram {
  /** The script the service names. */
  readonly script: SourceFile;
  /** All classes, in the order PHP would declare them (an included file's at the include). */
  readonly classes: readonly PhpClass[];
  /** `define('X', value)` constants. */
  readonly constants: ReadonlyMap<string, PhpNode>;
  /** True when some file did not parse (already reported); what it declares is missing. */
  readonly unparsable: boolean;
}

/** The include of the APS PHP runtime itself: not part of the package, and not needed. */
const RUNTIME_INCLUDE = /(^|\/)aps\/2\/runtime\.php$/;

const requireHere = createRequire(import.meta.url);

function newEngine(): Engine {
  // Loaded on first use, so a package without PHP never pays for the parser (~40 ms of start-up).
  const { Engine: PhpEngine } = requireHere("php-parser") as typeof import("php-parser");
  return new PhpEngine({
    parser: { extractDoc: true, php8: true, suppressErrors: false },
    ast: { withPositions: true },
  });
}

/** One PHP file of a package as parsed: its AST, or where and why it does not parse. */
interface ParsedPhpFile {
  readonly file: SourceFile;
  readonly ast?: PhpNode;
  readonly syntaxError?: { readonly loc: Loc; readonly message: string };
}

/**
 * The PHP files of one package, each read and parsed once per load: services of a package
 * usually `require_once` the same files (an aux_types.php, a base class), and every service's
 * script is walked on its own, so without this each shared file was parsed once per service.
 * The AST is only read afterwards, never changed, so sharing it is safe.
 */
export class PhpFileCache {
  // Made on the first PHP file: a package of JSON schemas never pays for the parser's set-up.
  private engine: Engine | undefined;
  private readonly files = new Map<string, ParsedPhpFile | undefined>();

  constructor(private readonly source: PackageSource) {}

  /** The parsed file at a package-relative path; undefined when the package has no such file. */
  get(path: string): ParsedPhpFile | undefined {
    if (this.files.has(path)) return this.files.get(path);
    const parsed = this.parse(path);
    this.files.set(path, parsed);
    return parsed;
  }

  /** Whether the package has a file at this path (read once, like the parse). */
  has(path: string): boolean {
    return this.get(path) !== undefined;
  }

  private parse(path: string): ParsedPhpFile | undefined {
    const text = this.source.read(path);
    if (text === undefined) return undefined;
    const file = createSourceFile(this.source.display(path), text);
    const engine = (this.engine ??= newEngine());
    try {
      return { file, ast: engine.parseCode(text, file.path) as unknown as PhpNode };
    } catch (error) {
      // PHP 7 names with blanks in them: parse the same text with the names closed up (positions kept).
      const closed = closeSpacedNames(text, engine);
      if (closed !== text) {
        try {
          return { file, ast: engine.parseCode(closed, file.path) as unknown as PhpNode };
        } catch {
          // Not what broke it: report the error of the text as written.
        }
      }
      const e = error as { message: string; lineNumber?: number; columnNumber?: number };
      const loc = e.lineNumber
        ? { file: file.path, line: e.lineNumber, col: (e.columnNumber ?? 0) + 1 }
        : fileLoc(file.path);
      return { file, syntaxError: { loc, message: e.message.replace(/ on line \d+$/, "") } };
    }
  }
}

/**
 * Parses the script at `scriptPath` and every package file it includes with `require` or
 * `include`, with a real PHP parser. Returns undefined when the script is absent or is not PHP
 * that parses (reported). Includes outside the package are reported and skipped.
 */
export function readPhpProgram(
  source: PackageSource,
  scriptPath: string,
  sink: DiagnosticSink,
  files: PhpFileCache = new PhpFileCache(source),
): PhpProgram | undefined {
  const classes: PhpClass[] = [];
  const constants = new Map<string, PhpNode>();
  const visited = new Set<string>();
  let unparsable = false;

  const visitFile = (path: string): SourceFile | undefined => {
    if (visited.has(path)) return undefined;
    visited.add(path);
    const parsed = files.get(path);
    if (!parsed) return undefined;
    const { file, ast, syntaxError } = parsed;
    if (!ast) {
      unparsable = true;
      sink.report(
        Codes.phpSyntax,
        syntaxError!.loc,
        `cannot parse PHP: ${syntaxError!.message}. aps-gen reads the annotations of PHP that runs; fix the syntax.`,
      );
      return file;
    }
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
    walkStatements(ast, file, dir);
    return file;
  };

  const walkStatements = (node: PhpNode, file: SourceFile, dir: string): void => {
    for (const child of statementChildren(node)) {
      switch (child.kind) {
        case "class":
          classes.push(readClass(child, file));
          break;
        case "namespace":
        case "block":
        case "declare":
          walkStatements(child, file, dir);
          break;
        case "if":
          walkStatements(child, file, dir);
          break;
        case "expressionstatement":
          readExpression(child.expression as PhpNode, file, dir);
          break;
        default:
          break;
      }
    }
  };

  const readExpression = (expr: PhpNode | undefined, file: SourceFile, dir: string): void => {
    if (!expr) return;
    if (expr.kind === "include") {
      const target = includeTarget(expr.target as PhpNode, file, dir);
      const loc = nodeLoc(file, expr);
      if (target === undefined) {
        sink.report(
          Codes.phpIncludeMissing,
          loc,
          `cannot tell which file this include names (only string paths, __DIR__ . "/x.php" and dirname(__FILE__) . "/x.php" are followed); classes it declares are not read.`,
        );
        return;
      }
      if (RUNTIME_INCLUDE.test(target.written)) return;
      const found = target.candidates.find((c) => files.has(c));
      if (found === undefined) {
        sink.report(
          Codes.phpIncludeMissing,
          loc,
          `included file "${target.written}" is not in the package; classes it declares are not read.`,
        );
        return;
      }
      visitFile(found);
      return;
    }
    if (expr.kind === "call") {
      const what = expr.what as PhpNode;
      const args = (expr.arguments as PhpNode[] | undefined) ?? [];
      if (
        what.kind === "name" &&
        String(what.name).toLowerCase() === "define" &&
        args[0]?.kind === "string" &&
        args[1]
      ) {
        constants.set(String(args[0].value), args[1]);
      }
    }
  };

  const script = visitFile(scriptPath);
  if (!script) return undefined;
  return { script, classes, constants, unparsable };
}

/** Statements directly inside a program, namespace, block or the branches of an if. */
function statementChildren(node: PhpNode): PhpNode[] {
  if (node.kind === "if") {
    const out: PhpNode[] = [];
    for (const branch of [node.body, node.alternate] as (PhpNode | null)[]) {
      if (!branch) continue;
      if (branch.kind === "block" || branch.kind === "if") out.push(...statementChildren(branch));
      else out.push(branch);
    }
    return out;
  }
  const children = node.children;
  return Array.isArray(children) ? (children as PhpNode[]) : [];
}

/** The file an include names: its text as written and the package paths it may mean. */
function includeTarget(
  target: PhpNode,
  file: SourceFile,
  dir: string,
): { written: string; candidates: string[] } | undefined {
  const parts = flattenConcat(target);
  if (!parts) return undefined;
  let fromScriptDir = false;
  let written = "";
  for (const [i, p] of parts.entries()) {
    if (p.kind === "string") written += String(p.value);
    else if (i === 0 && isDirExpression(p)) fromScriptDir = true;
    else return undefined;
  }
  void file;
  const rel = written.replace(/^\.\//, "");
  const inDir = joinPath(dir, fromScriptDir ? rel.replace(/^\//, "") : rel);
  // PHP looks next to the including script first (the runtime runs with scripts/ as the
  // working directory), then on the include path; the package root is the only other place.
  const candidates = fromScriptDir ? [inDir] : [inDir, joinPath("", rel)];
  return { written, candidates: candidates.filter((c): c is string => c !== undefined) };
}

function flattenConcat(node: PhpNode): PhpNode[] | undefined {
  if (node.kind === "bin" && node.type === ".") {
    const left = flattenConcat(node.left as PhpNode);
    const right = flattenConcat(node.right as PhpNode);
    return left && right ? [...left, ...right] : undefined;
  }
  if (node.kind === "string" || node.kind === "magic" || node.kind === "call") return [node];
  return undefined;
}

function isDirExpression(node: PhpNode): boolean {
  if (node.kind === "magic") return node.value === "__DIR__";
  if (node.kind !== "call") return false;
  const what = node.what as PhpNode;
  const args = (node.arguments as PhpNode[] | undefined) ?? [];
  return (
    what.kind === "name" &&
    String(what.name).toLowerCase() === "dirname" &&
    args.length === 1 &&
    args[0]!.kind === "magic" &&
    args[0]!.value === "__FILE__"
  );
}

/** Joins a folder and a relative path, resolving `.` and `..`; undefined when it leaves the package. */
function joinPath(dir: string, rel: string): string | undefined {
  const parts: string[] = [];
  for (const seg of [...dir.split("/"), ...rel.replace(/\\/g, "/").split("/")]) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.join("/");
}

function readClass(node: PhpNode, file: SourceFile): PhpClass {
  const nameNode = node.name as PhpNode;
  const properties: PhpProperty[] = [];
  const methods: PhpMethod[] = [];
  const constants = new Map<string, PhpNode>();
  for (const member of (node.body as PhpNode[] | undefined) ?? []) {
    if (member.kind === "propertystatement") {
      const doc = docOf(member);
      const visibility = String(member.visibility ?? "");
      for (const p of (member.properties as PhpNode[] | undefined) ?? []) {
        const pname = p.name as PhpNode;
        const initializer = p.value as PhpNode | null;
        properties.push({
          name: String(pname.name),
          loc: nodeLoc(file, pname),
          ...(doc && { doc }),
          ...(initializer && { initializer, initializerLoc: nodeLoc(file, initializer) }),
          isPublic: visibility === "public" || visibility === "",
          isStatic: member.isStatic === true,
        });
      }
    } else if (member.kind === "method") {
      const doc = docOf(member);
      const mname = member.name as PhpNode;
      methods.push({
        name: String(mname.name),
        loc: nodeLoc(file, mname),
        ...(doc && { doc }),
        parameters: ((member.arguments as PhpNode[] | undefined) ?? []).map((a) => {
          const an = a.name as PhpNode;
          return { name: String(an.name), loc: nodeLoc(file, an) };
        }),
      });
    } else if (member.kind === "classconstant") {
      for (const c of (member.constants as PhpNode[] | undefined) ?? []) {
        constants.set(String((c.name as PhpNode).name), c.value as PhpNode);
      }
    }
  }
  const ext = node.extends as PhpNode | null;
  const doc = docOf(node);
  return {
    name: String(nameNode.name),
    loc: nodeLoc(file, nameNode),
    file,
    ...(ext && { extendsName: String(ext.name) }),
    ...(doc && { doc }),
    properties,
    methods,
    constants,
  };
}

/** The doc comment directly before a declaration: the last `/** ... *\/` of its leading comments. */
function docOf(node: PhpNode): DocComment | undefined {
  // As PHP's getDocComment(): the last doc comment before the declaration, even when an
  // ordinary comment sits between them.
  const last = [...(node.leadingComments ?? [])]
    .reverse()
    .find((c) => c.kind === "commentblock" && c.value.startsWith("/**"));
  if (!last) return undefined;
  return { value: last.value, offset: last.offset };
}

/** The position of a node in its file. */
function nodeLoc(file: SourceFile, node: PhpNode): Loc {
  return locAt(file, node.loc?.start.offset ?? 0);
}

/** The short name of a PHP class reference: `\APS\ResourceBase` -> `ResourceBase`. */
export function shortClassName(name: string): string {
  return name.slice(name.lastIndexOf("\\") + 1);
}
