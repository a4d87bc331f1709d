import { distance } from "fastest-levenshtein";
import type { Suggestion } from "./diagnostic.ts";

/**
 * The candidate a misspelt word most likely meant, or undefined when none is close: the same
 * word in other letter case, or the nearest by edit distance within about a third of the
 * word's length (at most `maxEdits`). Ties go to the first candidate, so callers list the
 * likelier ones first.
 */
export function closestMatch(word: string, candidates: Iterable<string>, maxEdits = 3): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  const limit = Math.min(maxEdits, Math.max(1, Math.floor(word.length / 3)));
  for (const candidate of candidates) {
    if (candidate === word) continue;
    if (candidate.toLowerCase() === lower) return candidate;
    const d = distance(lower, candidate.toLowerCase());
    if (d <= limit && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * `; did you mean "x"?` for a message, or "" when nothing is close, with the suggestion to
 * attach to the diagnostic.
 */
export function didYouMean(
  word: string,
  candidates: Iterable<string>,
  maxEdits?: number,
): { readonly text: string; readonly suggestion?: Suggestion } {
  const match = closestMatch(word, candidates, maxEdits);
  return match === undefined
    ? { text: "" }
    : { text: `; did you mean "${match}"?`, suggestion: { written: word, replacement: match } };
}
