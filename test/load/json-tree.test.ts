import fc from "fast-check";
import { parseTree, type Node, type ParseError } from "jsonc-parser";
import { describe, expect, it } from "vitest";
import { parseJsonTree, readJsonTree } from "../../generator/load/json-tree.ts";
import { typeSchema } from "../../bench/build.bench.ts";

/** A node with its parent link checked and dropped, so trees compare field by field. */
function plain(node: Node, parent?: Node): unknown {
  expect(node.parent).toBe(parent);
  const { parent: _, children, ...rest } = node;
  return children === undefined
    ? { ...rest, keys: Object.keys(node) }
    : { ...rest, keys: Object.keys(node), children: children.map((c) => plain(c, node)) };
}

/** jsonc-parser's tree when it finds no error, else undefined. */
function reference(text: string): Node | undefined {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: false, allowTrailingComma: false });
  return errors.length === 0 ? root : undefined;
}

/** The quick reader gives jsonc-parser's tree, or nothing when jsonc-parser would find an error. */
function agrees(text: string): boolean {
  const quick = parseJsonTree(text);
  const slow = reference(text);
  if (quick === undefined) return true; // jsonc-parser reads it instead (and names any error)
  expect(slow, `quick reader took text jsonc-parser rejects: ${JSON.stringify(text)}`).toBeDefined();
  expect("parent" in quick).toBe(false);
  expect(plain(quick)).toEqual(plain(slow!));
  return true;
}

describe("parseJsonTree", () => {
  it("builds jsonc-parser's tree for a declaration, comments, escapes and all kinds of values", () => {
    const texts = [
      typeSchema(3, 10),
      '// header\n/* block\n comment */ {"a": [1, -2.5e+3, 0, true, false, null, "x\\"y\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uD83D"], "b": {}, "c": [], "": ""}\r\n',
      "[]",
      '"just a string"',
      "-0",
      '{"dup": 1, "dup": 2}',
      '{"deep": [[[{"x": [{}]}]]]} // trailing comment',
    ];
    for (const text of texts) {
      expect(parseJsonTree(text), text).toBeDefined();
      agrees(text);
    }
  });

  it("leaves whatever jsonc-parser reports an error for to jsonc-parser", () => {
    const bad = [
      '{"a": 1,}',
      "[1,]",
      '{"a" 1}',
      '{"a": truex}',
      "01",
      "1.",
      "1e",
      "-",
      '"\\x"',
      '"\\u12"',
      '"a\nb"',
      '"open',
      "/* open",
      "{} {}",
      "",
      "// only",
      "\u00a0{}",
      '{"a": 1 "b": 2}',
      "[1 2]",
      "/x",
      "nul",
      "\ufeff{}",
    ];
    for (const text of bad) {
      expect(reference(text), `fixture must be an error for jsonc-parser: ${JSON.stringify(text)}`).toBeUndefined();
      expect(parseJsonTree(text), JSON.stringify(text)).toBeUndefined();
    }
  });

  it("agrees with jsonc-parser on random JSON, pretty-printed or not", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2, "\t"), (value, indent) =>
        agrees(JSON.stringify(value, null, indent)),
      ),
      { numRuns: 300 },
    );
  });

  it("agrees with jsonc-parser on random text and on JSON with a character changed", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'{}[]:,"\\/*-+.0123456789eEtruefalsnl \t\n\rxu') }), agrees),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), fc.constantFrom(...'{}[]:,"\\/*- \n0e.x'), (value, at, c) => {
        const text = JSON.stringify(value, null, 1);
        const i = at % (text.length + 1);
        return agrees(text.slice(0, i) + c + text.slice(i + 1)) && agrees(text.slice(0, i) + c + text.slice(i));
      }),
      { numRuns: 1000 },
    );
  });

  it("tells whether some object repeats a key, at any depth and size", () => {
    expect(readJsonTree('{"a": 1, "b": {"c": [{"d": 1}]}}')!.duplicateKeys).toBe(false);
    expect(readJsonTree('{"a": 1, "a": 2}')!.duplicateKeys).toBe(true);
    expect(readJsonTree('[{"x": {"b": 1, "c": 2, "b": 3}}]')!.duplicateKeys).toBe(true);
    const keys = fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"), {
      maxLength: 14,
    });
    fc.assert(
      fc.property(keys, keys, (outer, inner) => {
        const object = (ks: string[], value: string) => `{${ks.map((k) => `"${k}": ${value}`).join(", ")}}`;
        const text = object(outer, object(inner, "1"));
        const repeats = (ks: string[]) => new Set(ks).size < ks.length;
        return readJsonTree(text)!.duplicateKeys === (repeats(outer) || (outer.length > 0 && repeats(inner)));
      }),
      { numRuns: 500 },
    );
  });
});
