/**
 * How deeply a JSON text nests, found with one linear scan and no recursion. Parsers, validators
 * and serialisers that walk a value recurse once per level, so a text nested thousands deep
 * (`[[[[...`) overflows the stack somewhere; refusing it before parsing is cheap and certain.
 */

/** Deepest nesting any JSON body may have; declared APS types nest far less. */
export const MAX_JSON_NESTING = 64;

/** True when `text` opens more than `max` arrays or objects inside one another (strings are skipped). */
export function nestsDeeperThan(text: string, max = MAX_JSON_NESTING): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
