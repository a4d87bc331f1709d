import type { Engine } from "php-parser";

const NAME_PART = new Set(["T_STRING", "T_NAME_QUALIFIED", "T_NAME_FULLY_QUALIFIED", "T_NAME_RELATIVE"]);

type Token = string | string[];

/**
 * PHP 5 and 7, which the APS PHP runtime ran on, let blanks stand inside a namespaced name
 * (`extends \ APS \ ResourceBase`, a public package does that); PHP 8 made a name one token, and
 * php-parser follows PHP 8, so it refuses them. This writes each such name without its blanks
 * and puts the blanks right after it, so the text keeps its length and every position after the
 * name stays where it was. A blank with a line break in it is left alone (moving it would move
 * lines). Returns the text unchanged when it has no such name.
 */
export function closeSpacedNames(text: string, engine: Engine): string {
  let tokens: Token[];
  try {
    tokens = engine.tokenGetAll(text);
  } catch {
    return text;
  }
  const out: string[] = [];
  let i = 0;
  while (i < tokens.length) {
    const run = nameRunAt(tokens, i);
    if (!run) {
      out.push(tokenText(tokens[i]!));
      i++;
      continue;
    }
    const parts = tokens.slice(i, run.end).map(tokenText);
    const closed = tokens
      .slice(i, run.end)
      .filter((t) => tokenName(t) !== "T_WHITESPACE")
      .map(tokenText)
      .join("");
    const all = parts.join("");
    out.push(run.spaced ? closed + " ".repeat(all.length - closed.length) : all);
    i = run.end;
  }
  return out.join("");
}

/**
 * The run of name parts and `\` separators starting at `start`, blanks between them allowed:
 * part (blank? sep blank? part)*, or starting with a separator. `spaced` when a blank stood
 * between two of them and a separator is among them.
 */
function nameRunAt(tokens: readonly Token[], start: number): { end: number; spaced: boolean } | undefined {
  const first = tokenName(tokens[start]!);
  if (!NAME_PART.has(first) && first !== "T_NS_SEPARATOR") return undefined;
  let end = start + 1;
  let expectSeparator = first !== "T_NS_SEPARATOR";
  let separators = first === "T_NS_SEPARATOR" ? 1 : 0;
  let spaced = false;
  for (;;) {
    let next = end;
    let blank = false;
    if (tokenName(tokens[next] ?? "") === "T_WHITESPACE") {
      if (/[\r\n]/.test(tokenText(tokens[next]!))) break;
      blank = true;
      next++;
    }
    const kind = tokenName(tokens[next] ?? "");
    const fits = expectSeparator ? kind === "T_NS_SEPARATOR" : NAME_PART.has(kind);
    if (!fits) break;
    if (kind === "T_NS_SEPARATOR") separators++;
    spaced ||= blank;
    expectSeparator = !expectSeparator;
    end = next + 1;
  }
  if (separators === 0 || end === start + 1) return undefined;
  return { end, spaced };
}

function tokenName(token: Token): string {
  return typeof token === "string" ? token : token[0]!;
}

function tokenText(token: Token): string {
  return typeof token === "string" ? token : token[1]!;
}
