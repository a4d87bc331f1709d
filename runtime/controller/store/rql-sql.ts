/**
 * RQL filters (runtime/common/rql.ts) as SQL over the resources table. Every value becomes a
 * bound parameter; property names only ever select a jsonb path given as a parameter array, so
 * nothing from the query string is spliced into SQL text.
 *
 * Values are typed the way RQL clients expect: `eq(quota,5)` matches the number 5 and the
 * string "5", `true`/`false`/`null` match the JSON literals and the strings; `lt`/`gt`/`le`/`ge`
 * compare numbers numerically and strings as text. Equality uses jsonb containment (`@>`), which
 * the GIN index on `body` serves. `in`/`out` take the property's value out of the body once per
 * row and look it up in the list, passed as one JSON array parameter (a hashed set), so their
 * cost does not grow with the list times the size of the body.
 */
import { sql, type SQL } from "drizzle-orm";
import { ControllerError } from "../support/errors.ts";
import type { LikePart, RqlFilter } from "../../common/rql.ts";
import type { RegistryType, TypeRegistry } from "../registry.ts";
import { sameTypeId } from "../type-id-version.ts";
import { isUuid } from "../support/uuid.ts";
import { likeLiteral } from "./like-pattern.ts";
import { indexedKind, sqlLiteral } from "./property-indexes.ts";
import { resources } from "./schema.ts";

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/;

/** Meta fields of the `aps` section that filters and sorts may name. */
const META: Readonly<Record<string, SQL>> = {
  "aps.id": sql`${resources.id}::text`,
  "aps.type": sql`${resources.typeId}`,
  "aps.status": sql`${resources.status}`,
  "aps.revision": sql`${resources.revision}`,
  "aps.modified": sql`${resources.modified}`,
  "aps.subscription": sql`${resources.subscription}::text`,
};

/** Rows on which the caller may read a property, where comparisons only hold; undefined when every row it sees is one. */
export type ReadGuard = (prop: string) => SQL | undefined;

/**
 * The type ids a filter keeps rows to, when its top level says `implementing(...)` (alone or in
 * an `and`): with one type, `eq` on a property it declares is written for that type's property
 * index (store/property-indexes.ts), and the caller's access is tested for those types only.
 */
export function filterScope(filter: RqlFilter | undefined, registry: TypeRegistry): readonly string[] | undefined {
  if (!filter) return undefined;
  if (filter.op === "implementing") return implementingIds(registry, filter.typeId);
  if (filter.op !== "and") return undefined;
  let scope: string[] | undefined;
  for (const arg of filter.args) {
    if (arg.op !== "implementing") continue;
    const ids = implementingIds(registry, arg.typeId);
    scope = scope ? scope.filter((id) => ids.includes(id)) : ids;
  }
  return scope;
}

/** The top-level properties `eq`/`ne` compare in the form of `typeId`'s property index (see filterSql). */
export function indexedProperties(filter: RqlFilter | undefined, type: RegistryType | undefined): string[] {
  if (!filter || !type) return [];
  switch (filter.op) {
    case "and":
    case "or":
      return filter.args.flatMap((a) => indexedProperties(a, type));
    case "not":
      return indexedProperties(filter.arg, type);
    case "eq":
    case "ne":
      return !META[filter.prop] && indexedKind(type, filter.prop) ? [filter.prop] : [];
    default:
      return [];
  }
}

function implementingIds(registry: TypeRegistry, typeId: string): string[] {
  return [...registry.values()]
    .filter((t) => sameTypeId(t.id, typeId) || t.ancestors.some((a) => sameTypeId(a, typeId)))
    .map((t) => t.id);
}

/**
 * Translates a filter; `registry` resolves `implementing(...)`, `readable` keeps each comparison
 * on a property to the rows where the caller may read it (so `not`/`ne` reveal nothing either).
 * Throws ControllerError(400) for what lists cannot do.
 */
export function filterSql(
  filter: RqlFilter,
  registry: TypeRegistry,
  readable: ReadGuard,
  scope = filterScope(filter, registry),
): SQL {
  const guarded = (prop: string, condition: SQL) => {
    const guard = META[prop] ? undefined : readable(prop);
    return guard ? sql`(${condition} and ${guard})` : condition;
  };
  // One type in scope: `eq` on a property it declares compares the one value its index holds.
  const only = scope?.length === 1 ? registry.get(scope[0]!) : undefined;
  const equality = (prop: string, value: string) => {
    const kind = META[prop] ? undefined : indexedKind(only, prop);
    return kind ? declaredEquals(prop, kind, value) : equals(prop, value);
  };
  switch (filter.op) {
    case "and":
    case "or":
      return sql`(${sql.join(
        filter.args.map((a) => filterSql(a, registry, readable, scope)),
        filter.op === "and" ? sql` and ` : sql` or `,
      )})`;
    case "not":
      // A comparison on a property the row lacks is null (`body -> 'p' = ...`): not a match, and not one once negated either.
      return sql`(not coalesce(${filterSql(filter.arg, registry, readable, scope)}, false))`;
    case "eq": {
      const relation = linkRelation(filter.prop, registry);
      if (relation !== undefined) return linkedTo(relation, filter.value);
      return guarded(filter.prop, equality(filter.prop, filter.value));
    }
    case "ne": {
      const relation = linkRelation(filter.prop, registry);
      if (relation !== undefined) return sql`(not ${linkedTo(relation, filter.value)})`;
      return sql`(not coalesce(${guarded(filter.prop, equality(filter.prop, filter.value))}, false))`;
    }
    case "in":
      return filter.values.length ? guarded(filter.prop, oneOf(filter.prop, filter.values)) : sql`false`;
    case "out":
      return filter.values.length ? sql`(not ${guarded(filter.prop, oneOf(filter.prop, filter.values))})` : sql`true`;
    case "lt":
    case "gt":
    case "le":
    case "ge":
      return guarded(filter.prop, ordering(filter.op, filter.prop, filter.value));
    case "like":
      return guarded(
        filter.prop,
        sql`coalesce(${textOf(filter.prop)} like ${likeText(filter.pattern)} escape '\\', false)`,
      );
    case "implementing": {
      // Written as literals: a partial index (`where type_id = '<id>'`) serves only a condition the planner can prove implies it.
      const ids = implementingIds(registry, filter.typeId);
      return ids.length ? sql.raw(`type_id in (${ids.map(sqlLiteral).join(", ")})`) : sql`false`;
    }
    case "composing":
      throw new ControllerError(
        400,
        "composing(...) lists the types a type implements; use it on /aps/2/types, not on resources.",
      );
    case "linkedWith":
      // Not an id: nothing is linked with it (and no cast error). An id: both link indexes serve.
      if (!isUuid(filter.id)) return sql`false`;
      return sql`(${resources.id} in (select target_id from links where source_id = ${filter.id}::uuid) or ${resources.id} in (select source_id from links where target_id = ${filter.id}::uuid))`;
  }
}

/** An ORDER BY term for `sort(+prop)` / `sort(-prop)`; unreadable values sort as missing. */
export function sortSql(prop: string, descending: boolean, readable: ReadGuard): SQL {
  const meta = META[prop];
  const guard = meta ? undefined : readable(prop);
  const expr =
    meta ??
    (guard
      ? sql`(case when ${guard} then ${resources.body} #> ${pathOf(prop)}::text[] end)`
      : sql`(${resources.body} #> ${pathOf(prop)}::text[])`);
  return descending ? sql`${expr} desc nulls last` : sql`${expr} asc nulls last`;
}

/**
 * `<relation>.aps.id`: the id a link of that relation points to, the filter real UIs send
 * (Connect `mylist.js:22-31` `eq(account.aps.id,<id>)`, `vat.py:142-149`). Links are not in the
 * body, so it is a lookup in `links`; a name that is no relation of any type stays a property path.
 */
function linkRelation(prop: string, registry: TypeRegistry): string | undefined {
  const match = /^([A-Za-z_]\w*)\.aps\.id$/.exec(prop);
  if (!match || META[prop]) return undefined;
  const relation = match[1]!;
  for (const type of registry.values()) if (relation in type.relations) return relation;
  return undefined;
}

/** Rows with a `relation` link to `target` (links are visible with the resource, as `select(...)` shows them). */
function linkedTo(relation: string, target: string): SQL {
  if (!isUuid(target)) return sql`false`;
  return sql`${resources.id} in (select source_id from links where relation = ${relation} and target_id = ${target}::uuid)`;
}

function equals(prop: string, value: string): SQL {
  const meta = META[prop];
  if (meta) return sql`coalesce(${meta}::text = ${value}, false)`;
  const tests = candidates(value).map((c) => sql`${resources.body} @> ${containment(prop, c)}::jsonb`);
  return tests.length === 1 ? tests[0]! : sql`(${sql.join(tests, sql` or `)})`;
}

/**
 * `eq` on a top-level property the one type in scope declares with `kind`: the stored value is
 * of that kind (the controller validates what it stores), so the query value is compared as
 * that kind alone, in the form the type's property index holds (`body -> 'prop'`). jsonb
 * equality is numeric for numbers (`5` equals `5.0`). A value that cannot be of the kind
 * matches nothing, as it matched nothing before.
 */
function declaredEquals(prop: string, kind: string, value: string): SQL {
  let json: string | undefined;
  if (kind === "string") json = JSON.stringify(value);
  else if (kind === "boolean") json = value === "true" || value === "false" ? value : undefined;
  else json = isNumberText(value) ? value : undefined;
  return json === undefined ? sql`false` : sql`(${resources.body} -> ${sql.raw(sqlLiteral(prop))}) = ${json}::jsonb`;
}

/**
 * True where the property equals one of `values` (with the same typing as {@link equals}). The
 * value is extracted once per row and tested against a set built once per query; jsonb equality
 * is what containment means for scalars (`5` equals `5.0`, `"5"` does not equal `5`).
 */
function oneOf(prop: string, values: readonly string[]): SQL {
  const list = (texts: readonly string[]) => `[${texts.join(",")}]`;
  const meta = META[prop];
  if (meta)
    return sql`coalesce(${meta}::text in (select jsonb_array_elements_text(${list(values.map((v) => JSON.stringify(v)))}::jsonb)), false)`;
  const json = list(
    values.flatMap((v) => candidates(v).map((c) => (c instanceof RawNumber ? c.text : JSON.stringify(c)))),
  );
  return sql`coalesce((${resources.body} #> ${pathOf(prop)}::text[]) in (select jsonb_array_elements(${json}::jsonb)), false)`;
}

/** The JSON values a query value stands for: the string, and the number, boolean or null it spells. */
function candidates(value: string): unknown[] {
  const all: unknown[] = [value];
  if (isNumberText(value)) all.push(new RawNumber(value));
  if (value === "true" || value === "false") all.push(value === "true");
  if (value === "null") all.push(null);
  return all;
}

/** Longest number text compared as a number (PostgreSQL's numeric holds at most 16383 fraction digits). */
const MAX_NUMBER_TEXT = 1000;

/**
 * True when `value` is written as a number; ControllerError(400) when it is one that no stored number
 * can be (it overflows or underflows a double, or is longer than {@link MAX_NUMBER_TEXT}): bodies
 * hold JSON numbers, and PostgreSQL would fail on such a literal rather than say "no match".
 */
function isNumberText(value: string): boolean {
  if (!NUMBER.test(value)) return false;
  const n = Number(value);
  const underflows = n === 0 && /[1-9]/.test(value.replace(/[eE].*$/, ""));
  if (!Number.isFinite(n) || underflows || value.length > MAX_NUMBER_TEXT) {
    throw new ControllerError(
      400,
      `${value.length > 40 ? `${value.slice(0, 40)}...` : value} is out of the range of numbers a query can compare with (about ±1.8e308, at most ${MAX_NUMBER_TEXT} characters).`,
    );
  }
  return true;
}

function ordering(op: "lt" | "gt" | "le" | "ge", prop: string, value: string): SQL {
  const cmp = sql.raw({ lt: "<", gt: ">", le: "<=", ge: ">=" }[op]);
  const meta = META[prop];
  if (meta) {
    if (prop === "aps.revision") {
      if (!/^-?\d{1,9}$/.test(value))
        throw new ControllerError(400, `aps.revision compares with whole numbers; "${value}" is not one.`);
      return sql`coalesce(${meta} ${cmp} ${Number(value)}, false)`;
    }
    return sql`coalesce(${meta}::text ${cmp} ${value}, false)`;
  }
  const node = sql`(${resources.body} #> ${pathOf(prop)}::text[])`;
  if (isNumberText(value)) {
    return sql`coalesce(case when jsonb_typeof(${node}) = 'number' then (${node})::text::numeric ${cmp} ${value}::numeric else false end, false)`;
  }
  return sql`coalesce(case when jsonb_typeof(${node}) = 'string' then (${node} #>> '{}') ${cmp} ${value} else false end, false)`;
}

function textOf(prop: string): SQL {
  const meta = META[prop];
  return meta ? sql`${meta}::text` : sql`(${resources.body} #>> ${pathOf(prop)}::text[])`;
}

function pathOf(prop: string): string {
  // A Postgres text[] literal; names are [A-Za-z0-9_] only (checked by the parser), so no quoting is needed.
  return `{${prop.split(".").join(",")}}`;
}

/** `{"a": {"b": value}}` for `a.b`, as JSON text (exact for long integers). */
function containment(prop: string, value: unknown): string {
  let text = value instanceof RawNumber ? value.text : JSON.stringify(value);
  for (const key of prop.split(".").reverse()) text = `{${JSON.stringify(key)}:${text}}`;
  return text;
}

/** A number written as in the query, so 9223372036854775807 stays exact inside the JSON text. */
class RawNumber {
  constructor(readonly text: string) {}
}

function likeText(pattern: readonly LikePart[]): string {
  return pattern.map((p) => ("text" in p ? likeLiteral(p.text) : p.any === "many" ? "%" : "_")).join("");
}
