import type { JsonNode } from "../json-document.ts";
import type { Loc, TextOrigins } from "../source-file.ts";

/** A JSON scalar as a declaration holds it. */
export type JsonScalar = string | number | boolean | null;

/**
 * A JSON value built from PHP source, each piece remembering the annotation it came from.
 * Objects keep their members in insertion order, because `aps build` output has a fixed order.
 */
export type LocatedValue =
  | { readonly kind: "scalar"; readonly value: JsonScalar; readonly loc: Loc }
  | { readonly kind: "array"; readonly items: readonly LocatedValue[]; readonly loc: Loc }
  | { readonly kind: "object"; readonly members: LocatedMember[]; readonly loc: Loc };

/** One `"key": value` member; the key points where the member was declared. */
interface LocatedMember {
  readonly key: string;
  readonly keyLoc: Loc;
  readonly value: LocatedValue;
}

/** A scalar at `loc`. */
export function scalar(value: JsonScalar, loc: Loc): LocatedValue {
  return { kind: "scalar", value, loc };
}

/** An empty object at `loc`, to be filled with {@link put}. */
export function object(loc: Loc): LocatedValue & { kind: "object" } {
  return { kind: "object", members: [], loc };
}

/** Appends a member (or replaces one of the same key in place, as a PHP array would). */
export function put(
  target: LocatedValue & { kind: "object" },
  key: string,
  value: LocatedValue,
  keyLoc: Loc = value.loc,
): void {
  const at = target.members.findIndex((m) => m.key === key);
  if (at >= 0) target.members[at] = { key, keyLoc, value };
  else target.members.push({ key, keyLoc, value });
}

/** The plain JavaScript value, for tests and for writing `.schema.gen` files. */
export function plainValue(v: LocatedValue): unknown {
  if (v.kind === "scalar") return v.value;
  if (v.kind === "array") return v.items.map(plainValue);
  const out: Record<string, unknown> = {};
  for (const m of v.members) out[m.key] = plainValue(m.value);
  return out;
}

/**
 * Pretty-prints like PHP's `json_encode(..., JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES |
 * JSON_UNESCAPED_UNICODE)`, which is what `aps build` writes (4-space indent, raw UTF-8, `/`
 * unescaped), and records where every key and value starts so positions map back to PHP.
 */
export function printLocated(root: LocatedValue, indent = 4): { text: string; origins: TextOrigins; tree: JsonNode } {
  const offsets: number[] = [];
  const locs: Loc[] = [];
  let text = "";
  const mark = (loc: Loc) => {
    offsets.push(text.length);
    locs.push(loc);
  };
  const pad = (depth: number) => " ".repeat(indent * depth);
  // The jsonc-parser tree of the printed text is built while printing, so the model can read
  // it without parsing the text again (that parse was a sixth of loading a PHP package).
  const write = (v: LocatedValue, depth: number, parent: JsonNode | undefined): JsonNode => {
    mark(v.loc);
    const offset = text.length;
    if (v.kind === "scalar") {
      text += JSON.stringify(v.value);
      return {
        type: scalarType(v.value),
        value: v.value,
        offset,
        length: text.length - offset,
        ...(parent && { parent }),
      };
    }
    const node: MutableNode = { type: v.kind, offset, length: 0, children: [], ...(parent && { parent }) };
    const entries = v.kind === "array" ? v.items : v.members;
    const [open, close] = v.kind === "array" ? ["[", "]"] : ["{", "}"];
    if (entries.length === 0) {
      text += open + close;
      node.length = 2;
      return node;
    }
    text += `${open}\n`;
    entries.forEach((entry, i) => {
      text += pad(depth + 1);
      if (v.kind === "array") {
        node.children!.push(write(entry as LocatedValue, depth + 1, node));
      } else {
        const m = entry as LocatedMember;
        mark(m.keyLoc);
        const keyOffset = text.length;
        const keyText = JSON.stringify(m.key);
        const property: MutableNode = {
          type: "property",
          offset: keyOffset,
          length: 0,
          colonOffset: keyOffset + keyText.length,
          children: [],
          parent: node,
        };
        property.children!.push({
          type: "string",
          value: m.key,
          offset: keyOffset,
          length: keyText.length,
          parent: property,
        });
        text += `${keyText}: `;
        property.children!.push(write(m.value, depth + 1, property));
        property.length = text.length - keyOffset;
        node.children!.push(property);
      }
      text += i < entries.length - 1 ? ",\n" : "\n";
    });
    text += pad(depth) + close;
    node.length = text.length - offset;
    // Text after a nested value belongs to the enclosing element again.
    mark(v.loc);
    return node;
  };
  const tree = write(root, 0, undefined);
  return { text, origins: { offsets, locs }, tree };
}

/** A node whose length is known only once its children are printed. */
type MutableNode = { -readonly [K in keyof JsonNode]: JsonNode[K] };

function scalarType(value: JsonScalar): JsonNode["type"] {
  if (value === null) return "null";
  return typeof value === "string" ? "string" : typeof value === "number" ? "number" : "boolean";
}
