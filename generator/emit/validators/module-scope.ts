import { posix } from "node:path";
import { pascalCase } from "../naming.ts";
import type { TypeNames } from "../types/name-table.ts";

/**
 * How generated validators import `runtime/common/<name>`: `aps-gen/runtime/common/<name>` for
 * checked-in output, an absolute file URL when aps-gen compiles validators for its own use
 * (`aps-gen validate` on any package, the controller importing a package).
 */
export type RuntimeSpecifier = (name: string) => string;

/** The default: the package's subpath export. */
export const packageRuntime: RuntimeSpecifier = (name) => `aps-gen/runtime/common/${name}`;

/** Where a type's validator module lives: `validators/<package>/<type>.gen.ts`. */
export function validatorModulePath(names: TypeNames): string {
  return names.modulePath.replace(/^types\//, "validators/");
}

/** The exported name of the checker of a structure (`checkMailboxForwarding`). */
export function structureCheckerName(owner: TypeNames, structure: string): string {
  const ts = owner.structures.get(structure) ?? pascalCase(structure);
  return ts.startsWith(owner.tsName) ? `check${ts}` : `check${owner.tsName}${ts}`;
}

/**
 * The names one generated module uses: imports (runtime helpers and other modules' structure
 * checkers) and module-level constants (compiled patterns, enum sets), so each is built once
 * when the module loads, never per call.
 */
export class ModuleScope {
  private readonly imports = new Map<string, Map<string, string>>();
  private readonly typeImports = new Map<string, Set<string>>();
  private readonly constants: string[] = [];
  private readonly constantByInit = new Map<string, string>();
  private readonly taken = new Set<string>();
  private counter = 0;

  constructor(
    private readonly modulePath: string,
    private readonly names: ReadonlyMap<string, TypeNames>,
    private readonly runtimeSpecifier: RuntimeSpecifier,
  ) {}

  /** A local name for `runtime/common/<module>`'s export `name`. */
  runtime(module: string, name: string): string {
    return this.importName(this.runtimeSpecifier(module), name);
  }

  /** A runtime type, imported with `import type`. */
  runtimeType(module: string, name: string): string {
    const spec = this.runtimeSpecifier(module);
    if (!this.typeImports.has(spec)) this.typeImports.set(spec, new Set());
    this.typeImports.get(spec)!.add(name);
    return name;
  }

  /** The checker of `<typeId>#<name>`, imported when another module declares it. */
  structureChecker(typeId: string, name: string): string {
    const owner = this.names.get(typeId);
    if (!owner) throw new Error(`no names for ${typeId}`);
    const fn = structureCheckerName(owner, name);
    const target = validatorModulePath(owner);
    if (target === this.modulePath) return fn;
    let spec = posix.relative(posix.dirname(this.modulePath), target).replace(/\.ts$/, ".js");
    if (!spec.startsWith(".")) spec = `./${spec}`;
    return this.importName(spec, fn);
  }

  /** A compiled pattern constant; the `u` flag when the pattern allows it, as JSON Schema tools do. */
  pattern(source: string): string {
    let flags = "u";
    try {
      new RegExp(source, "u");
    } catch {
      flags = "";
    }
    return this.constant("PATTERN", `new RegExp(${JSON.stringify(source)}${flags ? `, "${flags}"` : ""})`);
  }

  /** Declares `const <PREFIX>_<n> = <init>;` at module level. */
  constant(prefix: string, init: string): string {
    const known = this.constantByInit.get(init);
    if (known) return known;
    const name = `${prefix}_${this.counter++}`;
    this.constantByInit.set(init, name);
    this.constants.push(`const ${name} = ${init};`);
    return name;
  }

  /** Names the module declares itself, so imports never shadow them. */
  reserve(name: string): void {
    this.taken.add(name);
  }

  renderImports(): string[] {
    const lines: string[] = [];
    const specs = [...new Set([...this.imports.keys(), ...this.typeImports.keys()])].sort((a, b) => (a.startsWith(".") === b.startsWith(".") ? (a < b ? -1 : 1) : a.startsWith(".") ? 1 : -1));
    for (const spec of specs) {
      const values = [...(this.imports.get(spec) ?? new Map<string, string>()).entries()].sort(([a], [b]) => (a < b ? -1 : 1));
      const types = [...(this.typeImports.get(spec) ?? [])].sort();
      if (values.length === 0) {
        lines.push(`import type { ${types.join(", ")} } from "${spec}";`);
        continue;
      }
      const parts = [...values.map(([n, local]) => (n === local ? n : `${n} as ${local}`)), ...types.map((t) => `type ${t}`)];
      lines.push(`import { ${parts.join(", ")} } from "${spec}";`);
    }
    return lines;
  }

  renderConstants(): string[] {
    return this.constants;
  }

  private importName(spec: string, name: string): string {
    let names = this.imports.get(spec);
    if (!names) this.imports.set(spec, (names = new Map()));
    const existing = names.get(name);
    if (existing) return existing;
    let local = name;
    for (let n = 2; this.taken.has(local); n++) local = `${name}_${n}`;
    this.taken.add(local);
    names.set(name, local);
    return local;
  }
}
