import { CodeWriter } from "./code-writer.ts";
import { ImportSet } from "./import-set.ts";
import { jsonLiteral } from "./json-literal.ts";
import { call, writeExpr } from "./layout.ts";
import { stringLiteral } from "./string-literal.ts";
import type { TypeNames } from "./name-table.ts";

/**
 * How generated validators import `runtime/common/<name>`: `aps-gen/runtime/common/<name>` for
 * checked-in output, an absolute file URL when aps-gen compiles validators for its own use
 * (`aps-gen validate` on any package, the controller importing a package).
 */
export type RuntimeSpecifier = (name: string) => string;

/** The default: the package's subpath export. */
export const packageRuntime: RuntimeSpecifier = (name) => `aps-gen/runtime/common/${name}`;

/**
 * Where a type's validators live in what `aps-gen build` writes: the validators module of its
 * package, `validators/<package>/index.gen.ts`, which exports every validator, checker and
 * parser of the package's types.
 */
export function validatorModulePath(names: TypeNames): string {
  return `validators/${names.typesModule.slice("types/".length)}`;
}

/**
 * A module per type, `validators/<package>/<type>.gen.ts`: how the controller compiles the
 * validators of a package at run time, so that it can run them a few types at a time
 * (cli/validate/load-validators.ts). Same names, same code per type as the package's module.
 */
export function perTypeValidatorModulePath(names: TypeNames): string {
  return `validators/${names.moduleStem}.gen.ts`;
}

/** Which module the validators of a type live in: validatorModulePath or perTypeValidatorModulePath. */
export type ValidatorLayout = (names: TypeNames) => string;

/** The exported name of the checker of a structure (`checkMailboxForwarding`). */
export function structureCheckerName(owner: TypeNames, structure: string): string {
  const name = owner.validators.structures.get(structure);
  if (name === undefined) throw new Error(`${owner.typeId} declares no structure ${structure}`);
  return name;
}

/**
 * The checker of the properties and relations a type declares itself (`mailboxMembers`), which
 * the create and update validators of the type and of every subtype call: one per declaring
 * type, so an inherited property's checks are written once.
 */
export function memberCheckerName(owner: TypeNames): string {
  const name = owner.validators.members;
  if (name === undefined) throw new Error(`${owner.typeId} declares no properties or relations`);
  return name;
}

/** The parameter parser of a custom operation, named by the type that declares it (`parseMailboxChangePassword`). */
export function parserName(owner: TypeNames, operation: string): string {
  const name = owner.validators.parsers.get(operation);
  if (name === undefined) throw new Error(`${owner.typeId} declares no custom operation ${operation}`);
  return name;
}

/**
 * The names one generated module uses: imports (runtime helpers and other modules' structure
 * checkers) and module-level constants (compiled patterns, enum sets), so each is built once
 * when the module loads, never per call.
 */
export class ModuleScope {
  private readonly imports: ImportSet;
  private readonly constants: string[] = [];
  private readonly constantByInit = new Map<string, string>();
  private readonly runtimeSpecs = new Map<string, string>();
  private counter = 0;

  constructor(
    private readonly modulePath: string,
    private readonly names: ReadonlyMap<string, TypeNames>,
    private readonly runtimeSpecifier: RuntimeSpecifier,
    private readonly layout: ValidatorLayout = validatorModulePath,
  ) {
    this.imports = new ImportSet(modulePath, []);
  }

  /** A local name for `runtime/common/<module>`'s export `name`. */
  runtime(module: string, name: string): string {
    return this.imports.useValue(this.runtimeSpec(module), name);
  }

  /** A runtime type, imported with `import type`. */
  runtimeType(module: string, name: string): string {
    return this.imports.use(this.runtimeSpec(module), name);
  }

  /**
   * The specifier of `runtime/common/<module>`, made once per module name: a validator module asks
   * for runtime helpers once per check it writes, and a specifier made anew each time is a new
   * string for the import table to hash.
   */
  private runtimeSpec(module: string): string {
    let spec = this.runtimeSpecs.get(module);
    if (spec === undefined) this.runtimeSpecs.set(module, (spec = this.runtimeSpecifier(module)));
    return spec;
  }

  /** The checker of `<typeId>#<name>`, imported when another module declares it. */
  structureChecker(typeId: string, name: string): string {
    const owner = this.ownerOf(typeId);
    return this.validatorOf(owner, structureCheckerName(owner, name));
  }

  /** The member checker of the type `typeId` (see memberCheckerName), imported when another module declares it. */
  memberChecker(typeId: string): string {
    const owner = this.ownerOf(typeId);
    return this.validatorOf(owner, memberCheckerName(owner));
  }

  /** `fn` of the validators module of `owner` (in this scope's layout): its own name here, else imported. */
  validatorOf(owner: TypeNames, fn: string): string {
    const target = this.layout(owner);
    if (target === this.modulePath) return fn;
    return this.imports.useValue(this.imports.relative(target), fn);
  }

  /** A type exported by the types module of `owner`, imported with `import type`. */
  typeOf(owner: TypeNames, name: string): string {
    return this.imports.useType(owner, name);
  }

  private ownerOf(typeId: string): TypeNames {
    const owner = this.names.get(typeId);
    if (!owner) throw new Error(`no names for ${typeId}`);
    return owner;
  }

  /** A compiled pattern constant; the `u` flag when the pattern allows it, as JSON Schema tools do. */
  pattern(source: string): string {
    let flags = "u";
    try {
      new RegExp(source, "u");
    } catch {
      flags = "";
    }
    const init = call("new RegExp", stringLiteral(source), ...(flags ? [`"${flags}"`] : []));
    return this.declare("PATTERN", `RegExp ${source} ${flags}`, (name) => {
      const w = new CodeWriter();
      writeExpr(w, `const ${name} = `, init, ";");
      return w.toString();
    });
  }

  /** Declares `const <PREFIX>_<n> = <head><value><tail>;` at module level, `value` a JSON value. */
  constant(prefix: string, head: string, value: unknown, tail: string): string {
    return this.declare(prefix, `${head}${JSON.stringify(value)}${tail}`, (name) =>
      jsonLiteral(`const ${name} = ${head}`, value, `${tail};`),
    );
  }

  /** A module-level constant, once per `key`; `render` writes its declaration. */
  private declare(prefix: string, key: string, render: (name: string) => string): string {
    const known = this.constantByInit.get(key);
    if (known) return known;
    const name = `${prefix}_${this.counter++}`;
    this.constantByInit.set(key, name);
    this.constants.push(render(name).trimEnd());
    return name;
  }

  /** Names the module declares itself, so imports never shadow them. */
  reserve(name: string): void {
    this.imports.reserve(name);
  }

  renderImports(): string[] {
    return this.imports.render();
  }

  renderConstants(): string[] {
    return this.constants;
  }
}
