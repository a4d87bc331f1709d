import { codeFrameColumns } from "@babel/code-frame";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Diagnostic } from "../../generator/diagnostics.ts";

/**
 * The lines around a diagnostic's position with a caret under its column, as compilers show
 * them (@babel/code-frame). Files are read once per call site's cache; a position inside an
 * archive (`x.app.zip/schemas/...`) or in a file that cannot be read has no frame.
 */
export class CodeFrames {
  private readonly texts = new Map<string, string | undefined>();

  constructor(
    private readonly cwd: string,
    private readonly colour: boolean,
  ) {}

  frameOf(d: Diagnostic): string | undefined {
    const text = this.textOf(d.file);
    if (text === undefined || d.line < 1) return undefined;
    return codeFrameColumns(
      text,
      { start: { line: d.line, column: d.col } },
      { highlightCode: this.colour, forceColor: this.colour, linesAbove: 2, linesBelow: 1 },
    );
  }

  private textOf(file: string): string | undefined {
    if (this.texts.has(file)) return this.texts.get(file);
    let text: string | undefined;
    if (!/\.zip[\\/]/i.test(file)) {
      try {
        text = readFileSync(resolve(this.cwd, file), "utf8");
      } catch {
        text = undefined;
      }
    }
    this.texts.set(file, text);
    return text;
  }
}
