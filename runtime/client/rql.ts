/**
 * A typed RQL builder (docs/aps/rql.md): only the type's own property names, with values of their
 * declared types, so `eq("quota", "ten")` or `eq("qota", 1)` does not compile. It writes the
 * query string the controller parses: values percent-encoded after the reserved characters, so
 * a comma, parenthesis or `*` inside a value stays a value.
 */

type Scalar = string | number | bigint | boolean;

/** The `aps` meta fields lists can filter and sort on. */
export type ApsField = "aps.id" | "aps.type" | "aps.status";

/** Property names of `T` whose values are scalars (what RQL compares), plus the `aps` fields. */
export type RqlKey<T> =
  | { [K in keyof T & string]-?: NonNullable<T[K]> extends Scalar ? K : never }[keyof T & string]
  | ApsField;

/** The value type of a key. */
export type RqlValue<T, K> = K extends ApsField ? string : K extends keyof T ? NonNullable<T[K]> : never;

/** A filter over resources of `T`. */
export interface RqlFilter<in out T> {
  readonly rql: string;
  /** Only there to tie the filter to its type. */
  readonly __type?: (t: T) => void;
}

/** Percent-encodes a value or name so no RQL delimiter survives in it. */
export function rqlText(value: Scalar): string {
  return encodeURIComponent(String(value)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

const compare =
  (op: string) =>
  <T, K extends RqlKey<T>>(prop: K, value: RqlValue<T, K>): RqlFilter<T> => ({
    rql: `${op}(${prop},${rqlText(value as Scalar)})`,
  });

/**
 * The value list of in/out. A list of one empty string would read as an empty list, so it is
 * written as two empty items, which the parser reads back as one empty value.
 */
function valueList(values: readonly unknown[]): string {
  const text = values.map((v) => rqlText(v as Scalar)).join(",");
  return text === "" && values.length ? "," : text;
}

/** The filter functions for `T`: `const q = rql<Mailbox>(); q.and(q.eq("quota", 10), q.like("localPart", "a*"))`. */
export function rql<T>() {
  return {
    eq: compare("eq") as <K extends RqlKey<T>>(prop: K, value: RqlValue<T, K>) => RqlFilter<T>,
    ne: compare("ne") as <K extends RqlKey<T>>(prop: K, value: RqlValue<T, K>) => RqlFilter<T>,
    lt: compare("lt") as <K extends RqlKey<T>>(prop: K, value: RqlValue<T, K>) => RqlFilter<T>,
    gt: compare("gt") as <K extends RqlKey<T>>(prop: K, value: RqlValue<T, K>) => RqlFilter<T>,
    le: compare("le") as <K extends RqlKey<T>>(prop: K, value: RqlValue<T, K>) => RqlFilter<T>,
    ge: compare("ge") as <K extends RqlKey<T>>(prop: K, value: RqlValue<T, K>) => RqlFilter<T>,
    in: <K extends RqlKey<T>>(prop: K, values: readonly RqlValue<T, K>[]): RqlFilter<T> => ({
      rql: `in(${prop},(${valueList(values)}))`,
    }),
    out: <K extends RqlKey<T>>(prop: K, values: readonly RqlValue<T, K>[]): RqlFilter<T> => ({
      rql: `out(${prop},(${valueList(values)}))`,
    }),
    /** `*` matches any text and `?` one character; everything else is literal. */
    like: <K extends RqlKey<T>>(prop: K, pattern: string): RqlFilter<T> => ({
      rql: `like(${prop},${pattern
        .split(/([*?])/)
        .map((p) => (p === "*" || p === "?" ? p : rqlText(p)))
        .join("")})`,
    }),
    and: (...filters: [RqlFilter<T>, ...RqlFilter<T>[]]): RqlFilter<T> => ({
      rql: `and(${filters.map((f) => f.rql).join(",")})`,
    }),
    or: (...filters: [RqlFilter<T>, ...RqlFilter<T>[]]): RqlFilter<T> => ({
      rql: `or(${filters.map((f) => f.rql).join(",")})`,
    }),
    not: (filter: RqlFilter<T>): RqlFilter<T> => ({ rql: `not(${filter.rql})` }),
    linkedWith: (id: string): RqlFilter<T> => ({ rql: `linkedWith(${rqlText(id)})` }),
  };
}

/** A list query over `T`: filter, sort (`-` first for descending), select, limit. */
export interface ListQuery<T> {
  readonly filter?: RqlFilter<T>;
  readonly sort?: readonly (RqlKey<T> | `-${RqlKey<T>}` | `+${RqlKey<T>}`)[];
  readonly select?: readonly (keyof T & string)[];
  readonly limit?: readonly [start: number, count?: number];
}

/** The query string of a list query (without `?`), after `implementing(<type>)` when a type is given. */
export function queryText<T>(query: ListQuery<T> = {}, typeId?: string): string {
  const parts: string[] = [];
  if (typeId) parts.push(`implementing(${rqlText(typeId)})`);
  if (query.filter) parts.push(query.filter.rql);
  if (query.sort?.length)
    parts.push(
      `sort(${query.sort.map((s) => (s.startsWith("-") || s.startsWith("+") ? s.replace(/^\+/, "%2B") : `%2B${s}`)).join(",")})`,
    );
  if (query.select?.length) parts.push(`select(${query.select.join(",")})`);
  if (query.limit) parts.push(`limit(${query.limit[0]}${query.limit[1] === undefined ? "" : `,${query.limit[1]}`})`);
  return parts.join("&");
}
