import { Node, Project, SyntaxKind, type ObjectLiteralExpression } from "ts-morph";

/** One member a handler object must have: its name and the stub written when it is missing. */
export interface ExpectedHandler {
  readonly name: string;
  /** The initializer of a new member, e.g. `() => notYet("resize")`. */
  readonly stub: string;
}

/** What bringing a handler file up to date changed, or why it could not. */
export interface HandlerSync {
  /** The file's new text; equal to the old one when nothing was added. */
  readonly text: string;
  /** Members added as stubs, in declaration order. */
  readonly added: readonly string[];
  /** Members the file has that the declarations no longer name (left as they are). */
  readonly removed: readonly string[];
  /** Set when the file does not hold `export const <name> = { ... }`: nothing was changed. */
  readonly unreadable?: string;
}

/**
 * Brings a vendor's handler file in line with the operations its service declares now: each
 * missing member is added to the handler object as a stub, and members whose operation is gone
 * are reported, never deleted (their bodies are the vendor's). The file is edited through its
 * syntax tree (ts-morph), and only by inserting the new members before the object's closing
 * brace: every byte the vendor wrote stays as it was.
 */
export function syncHandlerFile(text: string, exportName: string, expected: readonly ExpectedHandler[]): HandlerSync {
  const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { allowJs: false } });
  const file = project.createSourceFile("handlers.ts", text);
  const declaration = file.getVariableDeclaration(exportName);
  const object = declaration?.getInitializer();
  const literal =
    object && Node.isObjectLiteralExpression(object)
      ? object
      : object && Node.isSatisfiesExpression(object)
        ? object.getExpression()
        : undefined;
  if (!literal || !Node.isObjectLiteralExpression(literal)) {
    return {
      text,
      added: [],
      removed: [],
      unreadable: `it has no "export const ${exportName} = { ... }" object to add members to`,
    };
  }
  const present = memberNames(literal);
  if (present === undefined)
    return {
      text,
      added: [],
      removed: [],
      unreadable: `its "${exportName}" object spreads another one, so which members it has cannot be told`,
    };
  const wanted = new Set(expected.map((e) => e.name));
  const missing = expected.filter((e) => !present.has(e.name));
  const removed = [...present].filter((name) => !wanted.has(name));
  if (missing.length === 0) return { text, added: [], removed };
  return { text: insertMembers(text, literal, missing), added: missing.map((m) => m.name), removed };
}

/** The names of an object literal's members; undefined when a spread hides some. */
function memberNames(literal: ObjectLiteralExpression): Set<string> | undefined {
  const names = new Set<string>();
  for (const p of literal.getProperties()) {
    if (Node.isSpreadAssignment(p)) return undefined;
    const nameNode = (p as { getNameNode?: () => Node }).getNameNode?.();
    if (!nameNode) continue;
    names.add(
      Node.isStringLiteral(nameNode) || Node.isNoSubstitutionTemplateLiteral(nameNode)
        ? nameNode.getLiteralText()
        : nameNode.getText(),
    );
  }
  return names;
}

/**
 * Inserts `name: stub,` lines before the closing brace, indented like the last member (two
 * spaces when the object is empty), with a comma added after the last member when it has none.
 * Text insertion rather than ts-morph's printer, which would re-print neighbouring members.
 */
function insertMembers(text: string, literal: ObjectLiteralExpression, missing: readonly ExpectedHandler[]): string {
  const properties = literal.getProperties();
  const last = properties.at(-1);
  const close = literal.getLastChildByKindOrThrow(SyntaxKind.CloseBraceToken).getStart();
  const lineStart = text.lastIndexOf("\n", close - 1) + 1;
  const closeIndent = /^[ \t]*/.exec(text.slice(lineStart))![0];
  const indent = last
    ? /^[ \t]*/.exec(text.slice(text.lastIndexOf("\n", last.getStart() - 1) + 1))![0]
    : `${closeIndent}  `;
  const lines = missing.map((m) => `${indent}${memberKey(m.name)}: ${m.stub},\n`).join("");
  // A comma after the last member, if it lacks one: right after the member's own text.
  let head = text.slice(0, close);
  let commaAt = -1;
  if (last) {
    const after = text.slice(last.getEnd(), close);
    if (!/^\s*,/.test(after) && !/^[^\n]*\/\/[^\n]*,/.test(after)) commaAt = last.getEnd();
  }
  if (commaAt >= 0) head = `${head.slice(0, commaAt)},${head.slice(commaAt)}`;
  // The closing brace on a line of its own: insert the lines before that line.
  if (text.slice(lineStart, close).trim() === "") {
    const at = lineStart + (commaAt >= 0 ? 1 : 0);
    return `${head.slice(0, at)}${lines}${head.slice(at)}${text.slice(close)}`;
  }
  return `${head}\n${lines}${closeIndent}${text.slice(close)}`;
}

function memberKey(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}
