import { getLocation, type Node } from "jsonc-parser";
import { CompletionItemKind, type CompletionItem, type Range } from "vscode-languageserver";
import type { TextDocument } from "vscode-languageserver-textdocument";
import { FORMATS, propertyAttributeNames, relationAttributeNames, UNITS } from "../../generator/pipeline.ts";
import type { ModelIndex } from "./model-index.ts";
import { quotedAt } from "./text-at.ts";

/** The primitive names a property's `type` may have besides structures and type ids. */
const PRIMITIVES = ["string", "number", "integer", "boolean", "array", "object"];

/** One proposal: its label and what to insert when the cursor is not inside quotes yet. */
interface Proposal {
  readonly label: string;
  readonly kind: CompletionItemKind;
  readonly detail?: string;
  readonly bare: string;
}

/**
 * Completion in a JSON declaration: attribute names inside a property or relation, `format` and
 * `unit` values, and type ids (every loaded type, the core types among them) in `implements`,
 * `type` and `$ref`. In PHP, type ids inside the quotes of @implements, @type, @link and @items.
 */
export function completionsAt(
  index: ModelIndex | undefined,
  path: string,
  document: TextDocument,
  offset: number,
): CompletionItem[] {
  const text = document.getText();
  const proposals = /\.php$/i.test(path) ? phpProposals(index, text, offset) : jsonProposals(index, path, text, offset);
  if (!proposals) return [];
  const { items, node } = proposals;
  // Inside a string (or a key being typed) the proposal replaces what is between the quotes.
  const inside =
    node && (node.type === "string" || node.type === "property") && offset > node.offset ? node : undefined;
  const range: Range | undefined = inside && {
    start: document.positionAt(inside.offset + 1),
    end: document.positionAt(Math.max(offset, contentEnd(text, inside))),
  };
  return items.map((p) => ({
    label: p.label,
    kind: p.kind,
    ...(p.detail && { detail: p.detail }),
    ...(range ? { textEdit: { range, newText: p.label } } : { insertText: p.bare }),
  }));
}

/** Where a string's contents end: before its closing quote, or at its end while it has none yet. */
function contentEnd(text: string, node: Node): number {
  const last = node.offset + node.length - 1;
  return node.length > 1 && (text[last] === '"' || text[last] === "'") ? last : node.offset + node.length;
}

function jsonProposals(
  index: ModelIndex | undefined,
  path: string,
  text: string,
  offset: number,
): { items: Proposal[]; node?: Node } | undefined {
  const location = getLocation(text, offset);
  const at = location.path;
  const last = at.at(-1);
  const node = location.previousNode;
  if (location.isAtPropertyKey) {
    const section = at.at(-3);
    const names =
      section === "properties" ? propertyAttributeNames : section === "relations" ? relationAttributeNames : undefined;
    if (!names) return undefined;
    return {
      node,
      items: names.map((name) => ({ label: name, kind: CompletionItemKind.Property, bare: `"${name}": ` })),
    };
  }
  // `"format": {...}` under "properties" is a property named format, not the attribute.
  const inMember = at.at(-2) !== "properties" && at.at(-2) !== "relations";
  const values = (list: Iterable<string>, kind: CompletionItemKind) =>
    [...list].map((v) => ({ label: v, kind, bare: `"${v}"` }));
  if (last === "format" && inMember) return { node, items: values(FORMATS, CompletionItemKind.EnumMember) };
  if (last === "unit" && inMember) return { node, items: values(UNITS, CompletionItemKind.EnumMember) };
  const typeIds = typeIdProposals(index);
  if (at[0] === "implements" && at.length === 2) return { node, items: typeIds };
  if (last === "$ref" || (last === "type" && at.at(-3) === "relations")) return { node, items: typeIds };
  if (last === "type" && inMember) {
    const structures = (index?.typesIn(path) ?? []).flatMap((t) => [...t.structures.keys()]);
    return {
      node,
      items: [
        ...values(PRIMITIVES, CompletionItemKind.Keyword),
        ...values(new Set(structures), CompletionItemKind.Struct),
        ...typeIds,
      ],
    };
  }
  return undefined;
}

/** In PHP: type ids inside the quotes of an annotation that takes one. */
function phpProposals(
  index: ModelIndex | undefined,
  text: string,
  offset: number,
): { items: Proposal[]; node?: Node } | undefined {
  const quoted = quotedAt(text, offset);
  if (
    !quoted ||
    !/@(implements|type|link|items)\(\s*$/.test(text.slice(text.lastIndexOf("\n", quoted.start) + 1, quoted.start - 1))
  )
    return undefined;
  return {
    node: { type: "string", offset: quoted.start - 1, length: quoted.end - quoted.start + 2 } as Node,
    items: typeIdProposals(index),
  };
}

function typeIdProposals(index: ModelIndex | undefined): Proposal[] {
  if (!index) return [];
  return [...index.compiled.model.types.values()].map((t) => ({
    label: t.id,
    kind: CompletionItemKind.Class,
    detail: `${t.name} (${index.packageOf(t.id) ?? "?"})`,
    bare: `"${t.id}"`,
  }));
}
