import { locAt, type Loc, type SourceFile } from "../source-file.ts";

/** One argument of a tag: `"quoted text"` or a bare word such as `string` or `GET`. */
export interface TagArgument {
  /** The text, without quotes for a quoted argument. */
  readonly text: string;
  readonly quoted: boolean;
  readonly loc: Loc;
}

/** One `@name` or `@name(args)` tag of a doc comment. */
export interface DocTag {
  readonly name: string;
  /** Undefined for a flag (`@required`); an array, possibly empty, for `@name(...)`. */
  readonly args?: readonly TagArgument[];
  /** Where the `@` is. */
  readonly loc: Loc;
  /**
   * Text that follows the tag on its line. `aps build` drops such a tag entirely
   * (`@title("x")/home/...` yields no title), so readers must too, and say so.
   */
  readonly trailing?: string;
  /** True when `(` has no matching `)` on the line. */
  readonly unterminated?: boolean;
}

/** A `/** ... *\/` comment as php-parser reports it: its text and where it starts. */
export interface DocComment {
  readonly value: string;
  readonly offset: number;
}

const TAG_START = /^@([A-Za-z_][A-Za-z0-9_-]*)/;

/**
 * Reads the tags of a doc comment, one per line, keeping the position of every tag and
 * argument. Tags start a line (after the leading `*`), as in PHPDoc; an `@` inside text is
 * not a tag.
 */
export function readDocTags(comment: DocComment, file: SourceFile): DocTag[] {
  const tags: DocTag[] = [];
  const body = comment.value;
  let lineStart = 0;
  while (lineStart <= body.length) {
    let lineEnd = body.indexOf("\n", lineStart);
    if (lineEnd < 0) lineEnd = body.length;
    const tag = readLine(body, lineStart, lineEnd, comment.offset, file);
    if (tag) tags.push(tag);
    lineStart = lineEnd + 1;
  }
  return tags;
}

function readLine(body: string, start: number, end: number, base: number, file: SourceFile): DocTag | undefined {
  let line = body.slice(start, end).replace(/\r$/, "");
  // Where the comment closes on this line, the rest is not content.
  const close = line.lastIndexOf("*/");
  if (close >= 0) line = line.slice(0, close);
  let i = 0;
  const skipBlanks = () => {
    while (i < line.length && (line[i] === " " || line[i] === "\t")) i++;
  };
  skipBlanks();
  if (line.startsWith("/**", i)) i += 3;
  else if (line[i] === "*") i += 1;
  skipBlanks();
  const head = TAG_START.exec(line.slice(i));
  if (!head) return undefined;
  const at = (index: number) => locAt(file, base + start + index);
  const loc = at(i);
  const name = head[1]!;
  i += head[0].length;
  if (line[i] !== "(") {
    const rest = line.slice(i).trim();
    return { name, loc, ...(rest && { trailing: rest }) };
  }
  i += 1;
  const args: TagArgument[] = [];
  for (;;) {
    skipBlanks();
    if (i >= line.length) return { name, args, loc, unterminated: true };
    if (line[i] === ")" && args.length === 0) {
      i += 1;
      break;
    }
    const argStart = i;
    let text = "";
    let quoted = false;
    if (line[i] === '"') {
      quoted = true;
      i += 1;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === "\\" && (line[i + 1] === '"' || line[i + 1] === "\\")) i += 1;
        text += line[i];
        i += 1;
      }
      if (i >= line.length) return { name, args, loc, unterminated: true };
      i += 1;
      skipBlanks();
    } else {
      while (i < line.length && line[i] !== "," && line[i] !== ")") text += line[i++];
      text = text.trim();
    }
    args.push({ text, quoted, loc: at(argStart) });
    if (line[i] === ",") {
      i += 1;
      continue;
    }
    if (line[i] === ")") {
      i += 1;
      break;
    }
    return { name, args, loc, unterminated: true };
  }
  const rest = line.slice(i).trim();
  return { name, args, loc, ...(rest && { trailing: rest }) };
}
