import type { Property, Relation, ResolvedType, Structure, TypeRef } from "../../generator/index.ts";

/**
 * Markdown descriptions of the model's parts, for hovers: what the compiler resolved, in the
 * words `aps-gen check` and docs/aps/resources.md use.
 */

export function describeType(ref: TypeRef): string {
  switch (ref.kind) {
    case "primitive":
      return ref.name;
    case "array":
      return `array of ${describeType(ref.items)}`;
    case "structure":
      return `structure ${ref.name} of ${ref.typeId}`;
    case "resource":
      return ref.typeId;
    case "self":
      return "this type";
    case "opaque":
      return `${ref.ref} (not among the inputs: any JSON)`;
    case "unresolved":
      return ref.text;
  }
}

/** The attributes of a property that were written, as `name: value` pieces. */
export function propertyAttributes(p: Property): string[] {
  const out: string[] = [];
  for (const flag of ["required", "readonly", "final", "encrypted", "headline", "uniqueItems"] as const)
    if (p[flag]) out.push(flag);
  for (const key of ["unit", "format", "pattern", "minLength", "maxLength", "minItems", "maxItems"] as const) {
    if (p[key] !== undefined) out.push(`${key}: ${String(p[key])}`);
  }
  if (p.default) out.push(`default: ${p.default.raw}`);
  if (p.enum) out.push(`enum: ${p.enum.map((e) => e.raw).join(", ")}`);
  if (p.access) out.push(`access: ${accessText(p.access)}`);
  return out;
}

function relationAttributes(r: Relation): string[] {
  return [
    r.required ? "required (strong link)" : "optional (weak link)",
    ...(r.collection ? ["collection"] : []),
    ...(r.access ? [`access: ${accessText(r.access)}`] : []),
  ];
}

function accessText(access: object): string {
  return Object.entries(access)
    .map(([role, allowed]) => `${role}=${String(allowed)}`)
    .join(", ");
}

const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;

function attributesLine(attributes: readonly string[]): string {
  return attributes.length ? attributes.map(code).join(" · ") : "no other attributes";
}

/** A property: its resolved type, its attributes, and what it replaces of the types it implements. */
export function propertyHover(
  p: Property,
  owner: ResolvedType,
  ancestors: readonly ResolvedType[],
  structure?: Structure,
): string {
  const where = structure ? `structure ${code(structure.name)} of ${code(owner.name)}` : code(owner.name);
  const lines = [
    `**property ${code(p.name)}** of ${where}: ${code(describeType(p.type))}`,
    "",
    attributesLine(propertyAttributes(p)),
  ];
  if (p.title) lines.push("", `Title: ${p.title}`);
  if (p.description) lines.push("", p.description);
  if (!structure) {
    for (const ancestor of ancestors) {
      const inherited = ancestor.decl.properties.get(p.name);
      if (inherited && inherited !== p) {
        lines.push(
          "",
          `Replaces ${code(p.name)} inherited from ${code(ancestor.name)} (${code(ancestor.id)}): ${code(describeType(inherited.type))} · ${attributesLine(propertyAttributes(inherited))}`,
        );
      }
    }
  }
  return lines.join("\n");
}

export function relationHover(r: Relation, owner: ResolvedType): string {
  const lines = [
    `**relation ${code(r.name)}** of ${code(owner.name)}: links to ${code(r.typeId)}`,
    "",
    attributesLine(relationAttributes(r)),
  ];
  if (r.description) lines.push("", r.description);
  return lines.join("\n");
}

/** A type: its name and package, and every property and relation it has, inherited ones with their origin. */
export function typeHover(type: ResolvedType, packageName: string | undefined): string {
  const lines = [
    `**${type.name}** ${code(type.id)}`,
    "",
    `package ${code(packageName ?? "?")} · ${code(type.decl.file)}`,
  ];
  if (type.ancestors.length) lines.push("", `implements ${type.ancestors.map(code).join(", ")}`);
  if (type.decl.description) lines.push("", type.decl.description);
  const origin = (declaredIn: string) => (declaredIn === type.id ? "" : ` (from ${code(declaredIn)})`);
  if (type.properties.size) {
    lines.push("", "Properties:");
    for (const p of type.properties.values())
      lines.push(
        `- ${code(p.name)}: ${code(describeType(p.type))}${propertyAttributes(p).length ? ` · ${propertyAttributes(p).join(" · ")}` : ""}${origin(p.declaredIn)}`,
      );
  }
  if (type.relations.size) {
    lines.push("", "Relations:");
    for (const r of type.relations.values())
      lines.push(`- ${code(r.name)} → ${code(r.typeId)} · ${relationAttributes(r).join(" · ")}${origin(r.declaredIn)}`);
  }
  return lines.join("\n");
}

export function structureHover(s: Structure, owner: ResolvedType): string {
  const lines = [`**structure ${code(s.name)}** of ${code(owner.name)} (${code(s.ownerTypeId)})`];
  if (s.description) lines.push("", s.description);
  for (const p of s.properties.values())
    lines.push(
      `- ${code(p.name)}: ${code(describeType(p.type))}${propertyAttributes(p).length ? ` · ${propertyAttributes(p).join(" · ")}` : ""}`,
    );
  return lines.join("\n");
}
