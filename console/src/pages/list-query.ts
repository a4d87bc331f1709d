/** The RQL of a resources list (docs/aps/rql.md): the type, the user's filter, the sort and the page. */

/** Resources per page. */
export const PAGE_SIZE = 20;

/** A sort on one property (or `aps.id`, `aps.status`). */
export interface Sort {
  readonly key: string;
  readonly descending: boolean;
}

/** `implementing(<type>)&<filter>&sort(±key)&limit(start,PAGE_SIZE)`, parts left out when empty. */
export function listQuery(typeId: string, filter: string, sort: Sort | undefined, start: number): string {
  return [
    `implementing(${rqlValue(typeId)})`,
    filter.trim(),
    sort ? `sort(${sort.descending ? "-" : "+"}${rqlValue(sort.key)})` : "",
    `limit(${start},${PAGE_SIZE})`,
  ]
    .filter(Boolean)
    .join("&");
}

/**
 * A value in RQL text: every character but letters, digits and `-_.~:/` is percent-encoded
 * (`encodeURIComponent` leaves `(`, `)`, `!`, `*` and `'` as they are, and RQL gives `(` and `)` a meaning).
 */
export function rqlValue(text: string): string {
  return text.replace(/[^A-Za-z0-9\-_.~:/]/gu, (c) =>
    c.length === 1 && c.charCodeAt(0) < 0x80
      ? `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`
      : encodeURIComponent(c),
  );
}

/**
 * What the filter box offers while one types: the text so far with its last word completed by
 * each property name (`eq(na` offers `eq(name`, `eq(quota`...), so that a browser's datalist,
 * which matches whole entries, completes names inside an expression too. Empty text offers the
 * names alone.
 */
export function completions(text: string, names: readonly string[]): string[] {
  const word = /[A-Za-z0-9_.]*$/.exec(text)![0];
  const before = text.slice(0, text.length - word.length);
  return names.filter((n) => n.startsWith(word) && n !== word).map((n) => before + n);
}
