/**
 * Builds the text of a generated module line by line, indenting nested blocks, so emitters say
 * what a block contains instead of counting spaces in hand-joined string arrays.
 */
export class CodeWriter {
  private readonly out: string[] = [];
  private prefix = "";

  /** One line at the current depth; an empty line stays empty (no trailing spaces). */
  line(text = ""): this {
    this.out.push(text === "" ? "" : this.prefix + text);
    return this;
  }

  /** Several lines at the current depth. */
  lines(texts: Iterable<string>): this {
    for (const t of texts) this.line(t);
    return this;
  }

  /** `head`, then `body` one level deeper, then `tail` (`}` unless told otherwise). */
  block(head: string, body: () => void, tail = "}"): this {
    this.line(head);
    this.indented(body);
    return this.line(tail);
  }

  /** `body` one level deeper. */
  indented(body: () => void): this {
    const outer = this.prefix;
    this.prefix += "  ";
    try {
      body();
    } finally {
      this.prefix = outer;
    }
    return this;
  }

  /** The text so far, lines joined, ending with one newline. */
  toString(): string {
    return this.out.length ? `${this.out.join("\n")}\n` : "";
  }
}

/**
 * The text of a whole generated file: sections (a banner, import lines, declarations) with one
 * blank line between those that are not empty, ending with exactly one newline.
 */
export function fileText(sections: readonly (string | readonly string[])[]): string {
  const parts: string[] = [];
  for (const s of sections) {
    let text = (typeof s === "string" ? s : s.join("\n")).trimEnd();
    let start = 0;
    while (text.charCodeAt(start) === 10) start++;
    if (start > 0) text = text.slice(start);
    if (text !== "") parts.push(text);
  }
  return `${parts.join("\n\n")}\n`;
}
