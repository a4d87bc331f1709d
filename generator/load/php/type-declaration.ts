import type { DiagnosticSink } from "../../diagnostics/diagnostic.ts";
import type { ConstantScope } from "./constant-value.ts";
import type { DocTag } from "./doc-tags.ts";
import { object, put, scalar, type LocatedValue } from "./located-json.ts";
import { readOperationAnnotations } from "./operation-annotations.ts";
import { shortClassName, type PhpClass, type PhpMethod, type PhpProgram, type PhpProperty } from "./php-program.ts";
import { accessObject, readPropertyAnnotations } from "./property-annotations.ts";
import { firstTag, usableTags } from "./usable-tags.ts";

const CLASS_TAGS = new Set(["type", "implements", "access"]);

/** A class that declares an APS type: `@type("http://...")` in its doc comment. */
export interface ResourceClass {
  readonly cls: PhpClass;
  readonly tags: readonly DocTag[];
  readonly typeTag: DocTag;
}

/** The resource classes of a program (class-level `@type`), reporting their doc comments once. */
export function resourceClasses(program: PhpProgram, sink: DiagnosticSink): ResourceClass[] {
  const out: ResourceClass[] = [];
  for (const cls of program.classes) {
    // Only a class with an `@type` in its doc comment is a resource; structures carry no class tags.
    if (!cls.doc || !/@type\b/.test(cls.doc.value)) continue;
    const tags = usableTags(cls.doc, cls.file, sink, "class", CLASS_TAGS);
    const typeTag = firstTag(tags, "type");
    if (typeTag?.args?.[0]) out.push({ cls, tags, typeTag });
  }
  return out;
}

/**
 * The JSON declaration `aps build` writes for a resource class (docs/aps/packages.md section 8):
 * members in its order, structures the type refers to in class declaration order, empty
 * sections left out.
 */
export function typeDeclaration(resource: ResourceClass, program: PhpProgram, sink: DiagnosticSink): LocatedValue {
  const { cls, tags, typeTag } = resource;
  const byName = classIndex(program);
  const scopeOf = (c: PhpClass): ConstantScope => ({ program, inClass: c, classNamed: (n) => byName.get(n) });
  const root = object(cls.loc);
  put(root, "apsVersion", scalar("2.0", cls.loc));
  put(root, "name", scalar(cls.name, cls.loc));
  const idArg = typeTag.args![0]!;
  put(root, "id", scalar(idArg.text, idArg.loc), typeTag.loc);
  const implementsTags = tags.filter((t) => t.name === "implements");
  if (implementsTags.length > 0) {
    const items = implementsTags.flatMap((t) => (t.args ?? []).map((a) => scalar(a.text, a.loc)));
    put(root, "implements", { kind: "array", items, loc: implementsTags[0]!.loc }, implementsTags[0]!.loc);
  }
  const access = accessObject(
    tags.filter((t) => t.name === "access"),
    sink,
  );
  if (access) put(root, "access", access);

  const properties = object(cls.loc);
  const relations = object(cls.loc);
  const referenced = new Set<string>();
  for (const { prop, owner } of inheritedProperties(cls, byName)) {
    const member = readPropertyAnnotations(prop, owner, scopeOf(owner), sink);
    if (!member) continue;
    if (member.section === "properties") for (const n of member.typeNames) referenced.add(n);
    put(member.section === "properties" ? properties : relations, member.name, member.value, member.loc);
  }
  const operations = object(cls.loc);
  for (const { method, owner } of inheritedMethods(cls, byName)) {
    const op = readOperationAnnotations(method, owner, sink);
    if (op) put(operations, op.name, op.value, op.loc);
  }
  const structures = structureSection(program, cls, referenced, byName, scopeOf, sink);

  if (properties.members.length > 0) put(root, "properties", properties);
  if (operations.members.length > 0) put(root, "operations", operations);
  if (structures.members.length > 0) put(root, "structures", structures);
  if (relations.members.length > 0) put(root, "relations", relations);
  return root;
}

/**
 * Structure classes the type refers to by class name, directly or through another structure
 * or as array items, emitted in class declaration order; unreferenced classes are left out.
 */
function structureSection(
  program: PhpProgram,
  resource: PhpClass,
  referenced: Set<string>,
  byName: ReadonlyMap<string, PhpClass>,
  scopeOf: (c: PhpClass) => ConstantScope,
  sink: DiagnosticSink,
): LocatedValue & { kind: "object" } {
  const entries = new Map<string, LocatedValue>();
  const pending = [...referenced];
  while (pending.length > 0) {
    const name = pending.pop()!;
    const cls = byName.get(name);
    if (!cls || cls === resource || entries.has(name)) continue;
    const properties = object(cls.loc);
    for (const { prop, owner } of inheritedProperties(cls, byName)) {
      const member = readPropertyAnnotations(prop, owner, scopeOf(owner), sink);
      if (member?.section !== "properties") continue;
      for (const n of member.typeNames) if (!entries.has(n)) pending.push(n);
      put(properties, member.name, member.value, member.loc);
    }
    const entry = object(cls.loc);
    put(entry, "type", scalar("object", cls.loc));
    put(entry, "properties", properties);
    entries.set(name, entry);
  }
  const out = object(resource.loc);
  for (const cls of program.classes) {
    const entry = entries.get(cls.name);
    if (entry) put(out, cls.name, entry, cls.loc);
  }
  return out;
}

function classIndex(program: PhpProgram): Map<string, PhpClass> {
  const out = new Map<string, PhpClass>();
  // The first declaration wins, as in PHP where a second one is a fatal error.
  for (const c of program.classes) if (!out.has(c.name)) out.set(c.name, c);
  return out;
}

/** The class and its package ancestors, nearest first (a parent outside the package, such as ResourceBase, ends the chain). */
function ancestry(cls: PhpClass, byName: ReadonlyMap<string, PhpClass>): PhpClass[] {
  const chain: PhpClass[] = [];
  for (let c: PhpClass | undefined = cls; c && !chain.includes(c); ) {
    chain.push(c);
    c = c.extendsName === undefined ? undefined : byName.get(shortClassName(c.extendsName));
  }
  return chain;
}

/**
 * Properties as PHP reflection lists them: the class's own first, then those it inherits and
 * does not redeclare. Static properties are class state, not resource data.
 */
function inheritedProperties(
  cls: PhpClass,
  byName: ReadonlyMap<string, PhpClass>,
): { prop: PhpProperty; owner: PhpClass }[] {
  const seen = new Set<string>();
  const out: { prop: PhpProperty; owner: PhpClass }[] = [];
  for (const owner of ancestry(cls, byName)) {
    for (const prop of owner.properties) {
      if (seen.has(prop.name) || prop.isStatic) continue;
      seen.add(prop.name);
      out.push({ prop, owner });
    }
  }
  return out;
}

function inheritedMethods(
  cls: PhpClass,
  byName: ReadonlyMap<string, PhpClass>,
): { method: PhpMethod; owner: PhpClass }[] {
  const seen = new Set<string>();
  const out: { method: PhpMethod; owner: PhpClass }[] = [];
  for (const owner of ancestry(cls, byName)) {
    for (const method of owner.methods) {
      const key = method.name.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ method, owner });
    }
  }
  return out;
}
