import { pathToFileURL } from "node:url";
import type { Location } from "vscode-languageserver";
import type { ResolvedType, Structure } from "../../generator/index.ts";
import { propertyHover, relationHover, structureHover, typeHover } from "./describe.ts";
import type { Member, ModelIndex } from "./model-index.ts";
import { nameAt, quotedAt, splitTypeRef } from "./text-at.ts";

/** What the cursor is on: a type (by its id), a structure, or a member written in the file. */
type Target =
  | { readonly kind: "type"; readonly type: ResolvedType }
  | { readonly kind: "structure"; readonly structure: Structure; readonly owner: ResolvedType }
  | { readonly kind: "member"; readonly member: Member };

/**
 * The model's part under the cursor of the file at `path`: a quoted type id (`implements`, a
 * relation's or property's `type`, `$ref`, a PHP annotation's argument), with `#Structure` or
 * a bare structure name of the file's type, else the property or relation named there.
 */
function targetAt(index: ModelIndex, path: string, text: string, offset: number): Target | undefined {
  const quoted = quotedAt(text, offset);
  if (quoted) {
    const ref = splitTypeRef(quoted.text);
    if (ref) {
      const type = index.type(ref.typeId);
      if (!type) return undefined;
      const structure = ref.structure === undefined ? undefined : type.structures.get(ref.structure);
      return structure
        ? { kind: "structure", structure, owner: index.type(structure.ownerTypeId) ?? type }
        : { kind: "type", type };
    }
    for (const type of index.typesIn(path)) {
      const structure = type.structures.get(quoted.text);
      if (structure) return { kind: "structure", structure, owner: index.type(structure.ownerTypeId) ?? type };
    }
  }
  const name = nameAt(text, offset);
  const line = lineNumberAt(text, offset);
  // In JSON the member's key is on the line; in PHP the cursor may be on `$name` below its annotations.
  const member = index.memberAt(path, name, line, !path.endsWith(".php"));
  return member && { kind: "member", member };
}

/** Markdown for a hover at `offset`, or undefined when the cursor is on nothing the model knows. */
export function hoverAt(index: ModelIndex, path: string, text: string, offset: number): string | undefined {
  const target = targetAt(index, path, text, offset);
  switch (target?.kind) {
    case undefined:
      return undefined;
    case "type":
      return typeHover(target.type, index.packageOf(target.type.id));
    case "structure":
      return structureHover(target.structure, target.owner);
    case "member": {
      const { member } = target;
      if (member.kind === "relation") return relationHover(member.member, member.owner);
      const ancestors = member.owner.ancestors.map((id) => index.type(id)).filter((t) => t !== undefined);
      return propertyHover(member.member, member.owner, ancestors, member.structure);
    }
  }
}

/** Where the type or structure under the cursor is declared, in whichever file and package. */
export function definitionAt(index: ModelIndex, path: string, text: string, offset: number): Location | undefined {
  const target = targetAt(index, path, text, offset);
  if (target?.kind === "type") return locationOf(index, target.type.decl.loc);
  if (target?.kind === "structure") return locationOf(index, target.structure.loc);
  return undefined;
}

function locationOf(
  index: ModelIndex,
  loc: { readonly file: string; readonly line: number; readonly col: number },
): Location {
  const position = { line: loc.line - 1, character: loc.col - 1 };
  return { uri: pathToFileURL(index.absolute(loc.file)).href, range: { start: position, end: position } };
}

function lineNumberAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}
