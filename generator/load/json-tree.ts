import type { Node } from "jsonc-parser";

/**
 * The tree jsonc-parser's `parseTree` builds, for text it would parse without an error: JSON with
 * `//` and `/* *\/` comments, no trailing commas. Undefined for anything else (a syntax error, an
 * unusual character between tokens), and the caller then asks jsonc-parser itself, which names
 * the error and where it is. Loading a 1000-type package parsed trees for a fifth of its CPU
 * through jsonc-parser's scanner and visitor callbacks (more without V8's optimising compiler,
 * which one-shot builds may run without); this reads the text once, straight into the nodes.
 *
 * The nodes are jsonc-parser's, field for field: `offset` and `length` of every value, `property`
 * nodes holding the key (a `string` node) and the value, `colonOffset`, `parent` links, and no
 * `parent` on the root. Strings keep jsonc-parser's escapes and numbers its `Number(text)`.
 */
export function parseJsonTree(text: string): Node | undefined {
  return readJsonTree(text)?.root;
}

/** A tree {@link parseJsonTree} read, and whether an object in it repeats a key. */
export interface JsonTree {
  readonly root: Node;
  /** Whether some object has a key twice: the loader then walks the tree to report where. */
  readonly duplicateKeys: boolean;
}

/** {@link parseJsonTree}, also telling whether a key repeats, so that a walk of the tree for that is needed only when one does. */
export function readJsonTree(text: string): JsonTree | undefined {
  const parser = new TreeParser(text);
  try {
    const root = parser.value(undefined);
    if (parser.skipTrivia() !== text.length) return undefined;
    delete root.parent;
    return { root, duplicateKeys: parser.duplicateKeys };
  } catch (e) {
    if (e === NOT_PLAIN) return undefined;
    throw e;
  }
}

/** Thrown (never outside this file) where jsonc-parser would report an error, or might. */
const NOT_PLAIN = new Error("not plain JSON");

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

type MutableNode = { -readonly [K in keyof Node]: Node[K] } & { children?: Node[] };

/** A placeholder for a node's children while they are read (never part of a finished tree). */
const NO_CHILDREN: Node[] = [];

class TreeParser {
  private pos = 0;
  /** Whether an object read so far has a key twice. */
  duplicateKeys = false;
  /** Children of the objects and arrays being read, innermost last. */
  private readonly stack: Node[] = [];
  constructor(private readonly text: string) {}

  /** One value starting at the next token, as a child of `parent`. */
  value(parent: Node | undefined): MutableNode {
    const text = this.text;
    const at = this.skipTrivia();
    const c = text.charCodeAt(at);
    if (c === 123 /* { */) return this.object(at, parent);
    if (c === 91 /* [ */) return this.array(at, parent);
    if (c === 34 /* " */) {
      const value = this.string(at);
      return { type: "string", offset: at, length: this.pos - at, parent: parent!, value };
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      NUMBER.lastIndex = at;
      if (!NUMBER.test(text)) throw NOT_PLAIN;
      this.pos = NUMBER.lastIndex;
      return {
        type: "number",
        offset: at,
        length: this.pos - at,
        parent: parent!,
        value: Number(text.slice(at, this.pos)),
      };
    }
    if (text.startsWith("true", at)) return this.keyword(at, 4, "boolean", true, parent);
    if (text.startsWith("false", at)) return this.keyword(at, 5, "boolean", false, parent);
    if (text.startsWith("null", at)) return this.keyword(at, 4, "null", null, parent);
    throw NOT_PLAIN;
  }

  private keyword(
    at: number,
    length: number,
    type: "boolean" | "null",
    value: boolean | null,
    parent: Node | undefined,
  ): MutableNode {
    // jsonc-parser reads a whole word: `truex` is one unknown token, not `true` and `x`.
    if (isWordCharacter(this.text.charCodeAt(at + length))) throw NOT_PLAIN;
    this.pos = at + length;
    return { type, offset: at, length, parent: parent!, value };
  }

  private object(at: number, parent: Node | undefined): MutableNode {
    const text = this.text;
    const node: MutableNode = { type: "object", offset: at, length: -1, parent: parent!, children: NO_CHILDREN };
    const start = this.stack.length;
    this.pos = at + 1;
    let next = this.skipTrivia();
    if (text.charCodeAt(next) !== 125 /* } */) {
      for (;;) {
        if (text.charCodeAt(next) !== 34 /* " */) throw NOT_PLAIN;
        // Every field in the literal, in jsonc-parser's order: adding colonOffset later would give
        // each property node a second allocation for its fields.
        const property: MutableNode = {
          type: "property",
          offset: next,
          length: -1,
          parent: node,
          children: NO_CHILDREN,
          colonOffset: -1,
        };
        const name = this.string(next);
        const key: MutableNode = {
          type: "string",
          value: name,
          offset: next,
          length: this.pos - next,
          parent: property,
        };
        const colon = this.skipTrivia();
        if (text.charCodeAt(colon) !== 58 /* : */) throw NOT_PLAIN;
        property.colonOffset = colon;
        this.pos = colon + 1;
        const value = this.value(property);
        property.children = [key, value];
        property.length = value.offset + value.length - next;
        this.stack.push(property);
        next = this.skipTrivia();
        const c = text.charCodeAt(next);
        if (c === 125 /* } */) break;
        if (c !== 44 /* , */) throw NOT_PLAIN;
        this.pos = next + 1;
        next = this.skipTrivia();
      }
    }
    node.children = this.take(start);
    if (!this.duplicateKeys && node.children.length > 1) this.duplicateKeys = repeatsKey(node.children);
    this.pos = next + 1;
    node.length = this.pos - at;
    return node;
  }

  private array(at: number, parent: Node | undefined): MutableNode {
    const text = this.text;
    const node: MutableNode = { type: "array", offset: at, length: -1, parent: parent!, children: NO_CHILDREN };
    const start = this.stack.length;
    this.pos = at + 1;
    let next = this.skipTrivia();
    if (text.charCodeAt(next) !== 93 /* ] */) {
      for (;;) {
        this.stack.push(this.value(node));
        next = this.skipTrivia();
        const c = text.charCodeAt(next);
        if (c === 93 /* ] */) break;
        if (c !== 44 /* , */) throw NOT_PLAIN;
        this.pos = next + 1;
      }
    }
    node.children = this.take(start);
    this.pos = next + 1;
    node.length = this.pos - at;
    return node;
  }

  /**
   * The children pushed since `start`, in an array of their number: the trees of a whole package
   * stay in memory until its model is built, and arrays grown by push keep room for a dozen more.
   */
  private take(start: number): Node[] {
    const children = this.stack.slice(start);
    this.stack.length = start;
    return children;
  }

  /** The string whose opening quote is at `at`; leaves the position after its closing quote. */
  private string(at: number): string {
    const text = this.text;
    // Most strings are keys and names with nothing to unescape: found by one pass to the quote.
    for (let i = at + 1; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 34 /* " */) {
        this.pos = i + 1;
        return text.slice(at + 1, i);
      }
      if (c === 92 /* \ */ || c < 0x20) break;
    }
    let out = "";
    let start = at + 1;
    for (let i = start; ; ) {
      if (i >= text.length) throw NOT_PLAIN;
      const c = text.charCodeAt(i);
      if (c === 34 /* " */) {
        this.pos = i + 1;
        return out + text.slice(start, i);
      }
      if (c < 0x20) throw NOT_PLAIN;
      if (c !== 92 /* \ */) {
        i++;
        continue;
      }
      out += text.slice(start, i);
      const e = text.charCodeAt(i + 1);
      let width = 2;
      if (e === 34 || e === 92 || e === 47) out += String.fromCharCode(e);
      else if (e === 98) out += "\b";
      else if (e === 102) out += "\f";
      else if (e === 110) out += "\n";
      else if (e === 114) out += "\r";
      else if (e === 116) out += "\t";
      else if (e === 117 /* u */ && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
        out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
        width = 6;
      } else throw NOT_PLAIN;
      i += width;
      start = i;
    }
  }

  /** Moves past spaces, tabs, line breaks and comments; returns (and keeps) the position of the next token. */
  skipTrivia(): number {
    const text = this.text;
    let i = this.pos;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else if (c === 47 /* / */) {
        const d = text.charCodeAt(i + 1);
        if (d === 47) {
          i += 2;
          while (i < text.length && text.charCodeAt(i) !== 10 && text.charCodeAt(i) !== 13) i++;
        } else if (d === 42 /* * */) {
          const end = text.indexOf("*/", i + 2);
          if (end < 0) throw NOT_PLAIN;
          i = end + 2;
        } else throw NOT_PLAIN;
      } else break;
    }
    this.pos = i;
    return i;
  }
}

/** Whether two of an object's property nodes have the same key. */
function repeatsKey(properties: readonly Node[]): boolean {
  // Objects of a declaration have a few keys each: comparing pairs makes nothing.
  if (properties.length <= 8) {
    for (let i = 1; i < properties.length; i++) {
      const key = properties[i]!.children![0]!.value;
      for (let j = 0; j < i; j++) if (properties[j]!.children![0]!.value === key) return true;
    }
    return false;
  }
  const seen = new Set<string>();
  for (const p of properties) {
    const key = p.children![0]!.value as string;
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

/** Whether jsonc-parser's scanner would read `c` as part of a word (anything but a delimiter). */
function isWordCharacter(c: number): boolean {
  if (Number.isNaN(c)) return false;
  return !(
    c === 32 ||
    c === 9 ||
    c === 10 ||
    c === 13 ||
    c === 123 ||
    c === 125 ||
    c === 91 ||
    c === 93 ||
    c === 34 ||
    c === 58 ||
    c === 44 ||
    c === 47
  );
}
