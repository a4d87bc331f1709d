import { takeName } from "./naming.ts";
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

/**
 * How the module at `from` imports the module at `to` (both forward-slash paths below the output
 * folder, as emitters make them): `./x.gen.js`, `../../types/pkg/x.gen.js`. What path.posix.relative
 * gives for such paths, without its resolving both against the working directory, which a
 * 1000-type build did some 10,000 times.
 */
export function moduleSpecifier(from: string, to: string): string {
  const fromDir = from.split("/");
  fromDir.pop();
  const target = to.split("/");
  let common = 0;
  while (common < fromDir.length && common < target.length && fromDir[common] === target[common]) common++;
  const up: string[] = [];
  for (let i = common; i < fromDir.length; i++) up.push("..");
  const spec = [...up, ...target.slice(common)].join("/");
  return (spec.startsWith(".") ? spec : `./${spec}`).replace(/\.ts$/, ".js");
}

/** Import statements of a module, with aliases when two imported names would clash. */
export class ImportSet {
  /** Imported names by module specifier; `value`: used as a value, else the import is type-only. */
  private readonly byModule = new Map<string, Map<string, { local: string; value: boolean }>>();
  private readonly usedLocal = new Set<string>();
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
    return this.entry(moduleSpec, name).local;
  }

  private entry(moduleSpec: string, name: string): { local: string; value: boolean } {
    let names = this.byModule.get(moduleSpec);
    if (!names) this.byModule.set(moduleSpec, (names = new Map()));
    const existing = names.get(name);
    if (existing) return existing;
    const local = takeName(name, this.usedLocal);
    const made = { local, value: false };
    names.set(name, made);
    return made;
  }

  /** A name the module declares itself, which no import may shadow. */
  reserve(name: string): void {
    this.usedLocal.add(name);
  }

  /** Uses an exported value (a function, a constant) rather than a type. */
  useValue(moduleSpec: string, name: string): string {
    const entry = this.entry(moduleSpec, name);
    entry.value = true;
    return entry.local;
  }

  /** The specifier of another generated module, relative to this one. */
  relative(modulePath: string): string {
    let spec = this.specs.get(modulePath);
    if (spec === undefined) {
      spec = moduleSpecifier(this.modulePath, modulePath);
      this.specs.set(modulePath, spec);
    }
    return spec;
  }

  /** Uses a name declared by the types module of `owner`'s package (this one: no import needed). */
  useType(owner: TypeNames, tsName: string): string {
    if (owner.typesModule === this.modulePath) return tsName;
    return this.use(this.relative(owner.typesModule), tsName);
  }

  /** Uses a value (a type id constant, an enum) declared by the types module of `owner`'s package. */
  useTypeValue(owner: TypeNames, name: string): string {
    if (owner.typesModule === this.modulePath) return name;
    return this.useValue(this.relative(owner.typesModule), name);
  }

  render(): string[] {
    const specs = [...this.byModule.keys()].sort((a, b) =>
      a.startsWith(".") === b.startsWith(".") ? (a < b ? -1 : 1) : a.startsWith(".") ? 1 : -1,
    );
    const out: string[] = [];
    for (const spec of specs) {
      const names = this.byModule.get(spec)!;
      const sorted = [...names.keys()].sort();
      let anyValue = false;
      for (const entry of names.values()) anyValue ||= entry.value;
      const parts: string[] = [];
      for (const name of sorted) {
        const { local, value } = names.get(name)!;
        parts.push(`${anyValue && !value ? "type " : ""}${name === local ? name : `${name} as ${local}`}`);
      }
      out.push(specifierList(`import ${anyValue ? "" : "type "}`, parts, ` from "${spec}";`));
    }
    return out;
  }
}
