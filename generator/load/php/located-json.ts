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
export interface LocatedMember {
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
export function put(target: LocatedValue & { kind: "object" }, key: string, value: LocatedValue, keyLoc: Loc = value.loc): void {
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
export function printLocated(root: LocatedValue, indent = 4): { text: string; origins: TextOrigins } {
  const offsets: number[] = [];
  const locs: Loc[] = [];
  let text = "";
  const mark = (loc: Loc) => {
    offsets.push(text.length);
    locs.push(loc);
  };
  const pad = (depth: number) => " ".repeat(indent * depth);
  const write = (v: LocatedValue, depth: number) => {
    mark(v.loc);
    if (v.kind === "scalar") {
      text += JSON.stringify(v.value);
      return;
    }
    const entries = v.kind === "array" ? v.items : v.members;
    const [open, close] = v.kind === "array" ? ["[", "]"] : ["{", "}"];
    if (entries.length === 0) {
      text += open + close;
      return;
    }
    text += `${open}\n`;
    entries.forEach((entry, i) => {
      text += pad(depth + 1);
      if (v.kind === "array") {
        write(entry as LocatedValue, depth + 1);
      } else {
        const m = entry as LocatedMember;
        mark(m.keyLoc);
        text += `${JSON.stringify(m.key)}: `;
        write(m.value, depth + 1);
      }
      text += i < entries.length - 1 ? ",\n" : "\n";
    });
    text += pad(depth) + close;
    // Text after a nested value belongs to the enclosing element again.
    mark(v.loc);
  };
  write(root, 0);
  return { text, origins: { offsets, locs } };
}
