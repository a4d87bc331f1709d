/**
 * A string literal as Prettier prints it: in double quotes, unless the text holds more double
 * quotes than single ones, then in single quotes (with `"` unescaped and `'` escaped). Every
 * other escape is JSON's, which Prettier keeps as it is.
 */
export function stringLiteral(value: string): string {
  const json = JSON.stringify(value);
  if (!value.includes('"')) return json;
  let doubles = 0;
  let singles = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 34) doubles++;
    else if (c === 39) singles++;
  }
  if (doubles <= singles) return json;
  return `'${json.slice(1, -1).replace(/\\(.)|'/g, (m, escaped?: string) => (escaped === undefined ? "\\'" : escaped === '"' ? '"' : m))}'`;
}
