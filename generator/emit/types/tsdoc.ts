import type { Property } from "../../model/model.ts";

/** A TSDoc block from paragraphs, indented; empty when there is nothing to say. */
export function tsdoc(paragraphs: readonly (string | undefined)[], indent = ""): string {
  const parts = paragraphs
    .filter((p): p is string => p !== undefined && p.trim() !== "")
    .map((p) => p.replace(/\*\//g, "*\\/").trim());
  if (parts.length === 0) return "";
  if (parts.length === 1 && !parts[0]!.includes("\n")) return `${indent}/** ${parts[0]} */\n`;
  const lines = parts.flatMap((p, i) => [...(i > 0 ? [""] : []), ...p.split("\n")]);
  return `${indent}/**\n${lines.map((l) => `${indent} *${l ? ` ${l}` : ""}`).join("\n")}\n${indent} */\n`;
}

/** The documentation of a property: its title and description, then what its attributes mean. */
export function propertyDoc(p: Property, indent: string): string {
  const facts: string[] = [];
  if (p.unit) facts.push(`Unit: ${p.unit}.`);
  if (p.format) facts.push(`Format: ${p.format}.`);
  if (p.pattern) facts.push(`Pattern: \`${p.pattern}\`.`);
  if (p.minLength !== undefined || p.maxLength !== undefined)
    facts.push(`Length: ${p.minLength ?? 0} to ${p.maxLength ?? 4000} characters.`);
  if (p.minItems !== undefined || p.maxItems !== undefined)
    facts.push(`Items: ${p.minItems ?? 0} to ${p.maxItems ?? "any number"}${p.uniqueItems ? ", unique" : ""}.`);
  else if (p.uniqueItems) facts.push("Items are unique.");
  if (p.readonly) facts.push("Read-only: only the application sets it.");
  if (p.final) facts.push("Final: can be set only when the resource is created.");
  if (p.encrypted) facts.push("Encrypted: stored encrypted and returned only to applications.");
  const title = p.title && p.description && p.title !== p.description ? `${p.title}.`.replace(/\.\.$/, ".") : undefined;
  return tsdoc(
    [
      title,
      p.description ?? p.title,
      facts.length ? facts.join(" ") : undefined,
      p.default !== undefined ? `@defaultValue \`${p.default.raw}\`` : undefined,
    ],
    indent,
  );
}
