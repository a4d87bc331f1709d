/**
 * Reading the text around a cursor: the quoted string or the word under it. Declarations are
 * JSON, APP-META.xml and PHP annotations; a type id is a quoted string in all of them
 * (`"http://..."`, `@implements("http://...")`), so plain text scanning serves every file kind.
 */

/** A piece of a document's text, with its offsets (end exclusive). */
interface TextSpan {
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** The contents of the quoted string (`"..."` or `'...'`) around `offset` on its line, without the quotes. */
export function quotedAt(text: string, offset: number): TextSpan | undefined {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const lineEndAt = text.indexOf("\n", offset);
  const line = text.slice(lineStart, lineEndAt < 0 ? text.length : lineEndAt);
  const at = offset - lineStart;
  // Walk the line's strings from the start, so a quote inside another string is not taken for one.
  let i = 0;
  while (i < line.length) {
    const quote = line[i];
    if (quote !== '"' && quote !== "'") {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < line.length && line[j] !== quote) j += line[j] === "\\" ? 2 : 1;
    if (at >= i && at <= j) return { text: line.slice(i + 1, j), start: lineStart + i + 1, end: lineStart + j };
    i = j + 1;
  }
  return undefined;
}

const WORD = /[\w$@.:/#-]/;

/** The run of name characters around `offset` (letters, digits, `_`, `$`, `@`, `-` and the characters of a type id). */
function wordAt(text: string, offset: number, pattern: RegExp = WORD): TextSpan | undefined {
  let start = offset;
  let end = offset;
  while (start > 0 && pattern.test(text[start - 1]!)) start--;
  while (end < text.length && pattern.test(text[end]!)) end++;
  return start === end ? undefined : { text: text.slice(start, end), start, end };
}

/** A name as PHP and JSON write it: `$quota` and `quota` are the same property. */
export function nameAt(text: string, offset: number): string | undefined {
  return wordAt(text, offset, /[\w$]/)?.text.replace(/^\$/, "");
}

/** Whether a string is a type id (`http://vendor/types/name/1.0`), optionally with `#Structure`. */
export function splitTypeRef(text: string): { readonly typeId: string; readonly structure?: string } | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(text)) return undefined;
  const hash = text.indexOf("#");
  return hash < 0 ? { typeId: text } : { typeId: text.slice(0, hash), structure: text.slice(hash + 1) };
}
