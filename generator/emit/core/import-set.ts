import { posix } from "node:path";
import { PRINT_WIDTH } from "./format-options.ts";
import type { TypeNames } from "./name-table.ts";
import { textWidth } from "./text-width.ts";

/**
 * An import or export statement naming `names` (`import { a, b } from "x";`): on one line if it
 * fits, else one name a line, as Prettier prints it; a single name never wraps.
 */
export function specifierList(head: string, names: readonly string[], tail: string): string {
  const line = `${head}{ ${names.join(", ")} }${tail}`;
  if (names.length < 2 || textWidth(line) <= PRINT_WIDTH) return line;
  return `${head}{\n  ${names.join(",\n  ")},\n}${tail}`;
}

/** Import statements of a module, with aliases when two imported names would clash. */
export class ImportSet {
  private readonly byModule = new Map<string, Map<string, string>>();
  private readonly usedLocal = new Set<string>();
  /** `spec|name` of imports used as values; all others are type-only. */
  private readonly values = new Set<string>();
  /** Specifiers of other modules, by their path (path.relative is costly, and asked per name). */
  private readonly specs = new Map<string, string>();

  /** `reserved`: names the module declares itself, which imports must not shadow. */
  constructor(
    private readonly modulePath: string,
    reserved: readonly string[],
  ) {
    for (const local of reserved) this.usedLocal.add(local);
  }

  /** Uses an exported name of a module; returns the local identifier to write. */
  use(moduleSpec: string, name: string): string {
    let names = this.byModule.get(moduleSpec);
    if (!names) this.byModule.set(moduleSpec, (names = new Map()));
    const existing = names.get(name);
    if (existing) return existing;
    let local = name;
    for (let n = 2; this.usedLocal.has(local); n++) local = `${name}_${n}`;
    this.usedLocal.add(local);
    names.set(name, local);
    return local;
  }

  /** A name the module declares itself, which no import may shadow. */
  reserve(name: string): void {
    this.usedLocal.add(name);
  }

  /** Uses an exported value (a function, a constant) rather than a type. */
  useValue(moduleSpec: string, name: string): string {
    this.values.add(`${moduleSpec}|${name}`);
    return this.use(moduleSpec, name);
  }

  /** The specifier of another generated module, relative to this one. */
  relative(modulePath: string): string {
    let spec = this.specs.get(modulePath);
    if (spec === undefined) {
      spec = posix.relative(posix.dirname(this.modulePath), modulePath).replace(/\.ts$/, ".js");
      if (!spec.startsWith(".")) spec = `./${spec}`;
      this.specs.set(modulePath, spec);
    }
    return spec;
  }

  /** Uses a name exported by another type's module (or this one: no import needed). */
  useType(owner: TypeNames, tsName: string): string {
    if (owner.modulePath === this.modulePath) return tsName;
    return this.use(this.relative(owner.modulePath), tsName);
  }

  render(): string[] {
    return [...this.byModule.entries()]
      .sort(([a], [b]) => (a.startsWith(".") === b.startsWith(".") ? (a < b ? -1 : 1) : a.startsWith(".") ? 1 : -1))
      .map(([spec, names]) => {
        const entries = [...names.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
        const anyValue = entries.some(([name]) => this.values.has(`${spec}|${name}`));
        const parts = entries.map(([name, local]) => `${anyValue && !this.values.has(`${spec}|${name}`) ? "type " : ""}${name === local ? name : `${name} as ${local}`}`);
        return specifierList(`import ${anyValue ? "" : "type "}`, parts, ` from "${spec}";`);
      });
  }
}


