import { getNodeValue, parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser";
import { Codes } from "../diagnostics/codes.ts";
import type { DiagnosticSink } from "../diagnostics/diagnostic.ts";
import { readJsonTree } from "./json-tree.ts";
import { locAt, rangeAt, type Loc, type SourceFile } from "./source-file.ts";

/** A node of the parsed JSON tree (jsonc-parser's), carrying offsets into the source. */
export type JsonNode = Node;

/** One `"key": value` pair of a JSON object, with both ends kept for diagnostics. */
export interface JsonMember {
  readonly key: string;
  readonly keyNode: JsonNode;
  readonly value: JsonNode;
}

/** A declaration file parsed into a position-keeping tree. */
export interface JsonDocument {
  readonly file: SourceFile;
  /** Undefined when the text is not JSON at all; the syntax errors are in the sink. */
  readonly root: JsonNode | undefined;
}

/**
 * Parses JSON with comments (real `aps build` output starts with `//` lines), reporting
 * syntax errors and duplicate keys. Duplicate keys are an error because JSON.parse, and
 * every tool after it, would keep only the last value without a word.
 */
export function parseJsonDocument(file: SourceFile, sink: DiagnosticSink): JsonDocument {
  // Nearly every declaration is plain JSON, which the quick reader takes; whatever it does not
  // take, jsonc-parser reads, and names the error if there is one.
  const quick = readJsonTree(file.text);
  if (quick) {
    if (quick.duplicateKeys) reportDuplicateKeys(file, quick.root, sink);
    return { file, root: quick.root };
  }
  const errors: ParseError[] = [];
  const root = parseTree(file.text, errors, { disallowComments: false, allowTrailingComma: false });
  if (errors.length > 0) {
    // The first error is the one worth reading; the rest usually follow from it.
    const first = errors[0]!;
    sink.report(Codes.jsonSyntax, rangeAt(file, first.offset, first.length), describeParseError(first));
    return { file, root: undefined };
  }
  if (root) reportDuplicateKeys(file, root, sink);
  return { file, root };
}

function describeParseError(error: ParseError): string {
  const what = printParseErrorCode(error.error)
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase();
  return `invalid JSON: ${what}. Fix the syntax here; comments (// and /* */) are allowed, trailing commas are not.`;
}

function reportDuplicateKeys(file: SourceFile, node: JsonNode, sink: DiagnosticSink): void {
  const children = node.children;
  if (children === undefined) return;
  // Index loops and a map made only for objects of two members or more: this walks every node of
  // every declaration, the hottest loop of loading a large package.
  if (node.type === "object" && children.length > 1) {
    const seen = new Map<string, JsonNode>();
    for (let i = 0; i < children.length; i++) {
      const keyNode = children[i]!.children?.[0];
      if (keyNode === undefined) continue;
      const key = String(keyNode.value);
      const earlier = seen.get(key);
      if (earlier) reportDuplicate(file, node, key, earlier, keyNode, sink);
      seen.set(key, keyNode);
    }
  }
  for (let i = 0; i < children.length; i++) reportDuplicateKeys(file, children[i]!, sink);
}

function reportDuplicate(
  file: SourceFile,
  object: JsonNode,
  key: string,
  earlier: JsonNode,
  keyNode: JsonNode,
  sink: DiagnosticSink,
): void {
  const first = locAt(file, earlier.offset);
  const inParameters = object.parent?.type === "property" && propertyKey(object.parent) === "parameters";
  sink.report(
    inParameters ? Codes.duplicateParameter : Codes.duplicateKey,
    nodeRange(file, keyNode),
    inParameters
      ? `parameter "${key}" is declared twice (first at line ${first.line}); parameter names must be unique within an operation.`
      : `duplicate key "${key}" (first at line ${first.line}:${first.col}); remove one, the earlier value would be ignored.`,
  );
}

function propertyKey(propertyNode: JsonNode): string | undefined {
  const key = propertyNode.children?.[0];
  return typeof key?.value === "string" ? key.value : undefined;
}

/** The members of an object node in source order (duplicates included). */
export function objectMembers(node: JsonNode): JsonMember[] {
  const out: JsonMember[] = [];
  const children = node.children;
  if (node.type !== "object" || children === undefined) return out;
  for (let i = 0; i < children.length; i++) {
    const pair = children[i]!.children;
    const keyNode = pair?.[0];
    const value = pair?.[1];
    if (keyNode && value) out.push({ key: String(keyNode.value), keyNode, value });
  }
  return out;
}

/** The value of `key` in an object node; the last one wins, as with JSON.parse. */
export function memberValue(node: JsonNode, key: string): JsonNode | undefined {
  const children = node.children;
  if (node.type !== "object" || children === undefined) return undefined;
  for (let i = children.length - 1; i >= 0; i--) {
    const pair = children[i]!.children;
    if (pair?.[1] !== undefined && String(pair[0]!.value) === key) return pair[1];
  }
  return undefined;
}

/** The plain JavaScript value of a node (numbers beyond 2^53 lose precision; see rawText). */
export function nodeValue(node: JsonNode): unknown {
  return getNodeValue(node);
}

/**
 * The value of a node as written: like {@link nodeValue}, but an integer outside ±(2^53 − 1) is
 * an exact `bigint` (a 64-bit default or enum value of a declaration, served back as written).
 * A repeated key keeps its last value, as with JSON.parse.
 */
export function exactNodeValue(file: SourceFile, node: JsonNode): unknown {
  switch (node.type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const pair of node.children ?? []) {
        const [key, value] = pair.children ?? [];
        if (key && value) out[String(key.value)] = exactNodeValue(file, value);
      }
      return out;
    }
    case "array":
      return (node.children ?? []).map((child) => exactNodeValue(file, child));
    case "number": {
      const text = rawText(file, node);
      return Number.isSafeInteger(node.value) || !/^-?\d+$/.test(text) ? node.value : BigInt(text);
    }
    default:
      return node.value;
  }
}

/** The exact source text of a node, e.g. to keep 64-bit integers exact. */
export function rawText(file: SourceFile, node: JsonNode): string {
  return file.text.slice(node.offset, node.offset + node.length);
}

/** The 1-based position where a node starts. */
export function nodeLoc(file: SourceFile, node: JsonNode): Loc {
  return locAt(file, node.offset);
}

/**
 * Where a node starts and ends, for diagnostics about the node itself (the model keeps only
 * starts, nodeLoc: most nodes are never reported, and an end costs a second lookup).
 */
export function nodeRange(file: SourceFile, node: JsonNode): Loc {
  return rangeAt(file, node.offset, node.length);
}

/** The JSON type of a node as a reader would name it in a message. */
export function jsonTypeName(node: JsonNode): string {
  if (node.type === "number")
    return Number.isInteger(node.value) && !/[.eE]/.test(String(node.value)) ? "integer" : "number";
  return node.type;
}
