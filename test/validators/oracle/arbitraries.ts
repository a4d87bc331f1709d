/**
 * fast-check arbitraries of request bodies for one resolved APS type, from the model: a mix of
 * valid-looking bodies (types, lengths, patterns, enums and item counts respected) and bodies
 * broken in one or two places (wrong types, null, unknown or forbidden keys, too long or short,
 * out of enum, duplicates, missing required). They do not decide validity: the oracle
 * (json-schema.ts) and the validators do, and the differential test compares the two.
 *
 * Deliberately left out, because JSON Schema cannot express them (see json-schema.ts): integers
 * between 2^53 and 2^64 in magnitude, and arrays of structures long enough to reach 4000
 * characters of JSON (inside them strings and item counts stay small). Also left out: own
 * `valueOf`/`toString` keys below the top level, which crash ajv's deep equality.
 * Every body is passed through JSON text once, so it looks exactly like a parsed request body
 * (plain prototypes, `__proto__` as an own key, no `-0`).
 */
import fc from "fast-check";
import type { ApsModel, TypeRef } from "../../../generator/model/model.ts";
import {
  compilePattern,
  effectiveMaxLength,
  literalJson,
  propertyRule,
  resolveStructure,
  type OracleActor,
  type OracleMode,
  type ValueSpec,
} from "./json-schema.ts";

type Arb = fc.Arbitrary<unknown>;

/** One change applied to a valid-looking body. */
type Mutation =
  | { readonly kind: "set"; readonly key: string; readonly value: unknown }
  | { readonly kind: "delete"; readonly key: string }
  | { readonly kind: "replace"; readonly value: unknown };

/** Items of generated arrays of structures stay few (the APS limit on their JSON text is not modelled). */
const MAX_STRUCTURE_ITEMS = 3;
/** Items of generated arrays of primitives, unless the bounds ask for more. */
const MAX_PRIMITIVE_ITEMS = 6;
/** Structure nesting beyond which only required members are generated. */
const MAX_DEPTH = 4;

/** Characters to repeat for boundary-length strings; "😀" is 1 character but 2 UTF-16 units. */
const FILL = fc.constantFrom("x", "é", "😀");

/** Keys no type declares, including ones that trip naive `in`/prototype lookups. */
const STRANGE_KEYS = [
  "unknownKey",
  "constructor",
  "toString",
  "hasOwnProperty",
  "__proto__",
  "valueOf",
  "",
  " ",
  "a/b",
  "~0",
  "id",
  "type",
];

const SAFE_INTEGER = fc.oneof(
  { arbitrary: fc.integer({ min: -1000, max: 100_000 }), weight: 4 },
  { arbitrary: fc.maxSafeInteger(), weight: 2 },
  {
    arbitrary: fc.constantFrom(
      0,
      1,
      -1,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
      2 ** 31,
      -(2 ** 31) - 1,
      2 ** 32,
    ),
    weight: 1,
  },
);

const FINITE_DOUBLE = fc.double({ noNaN: true, noDefaultInfinity: true });

const NON_INTEGER = fc.oneof(
  fc.constantFrom(0.5, -1.5, 1e-7, Math.PI, Number.EPSILON),
  FINITE_DOUBLE.filter((d) => !Number.isInteger(d)),
);

/** Small JSON values of every type, to put where they probably do not belong. */
const ANY_JSON: Arb = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, 1, -1, 1.5, "", "x", "1", "true", [], {}, [null], { aps: {} }, [
    1,
    "1",
  ]),
  fc.jsonValue({ maxDepth: 2 }),
);

/** APS equality (docs/aps/resources.md) on JSON values (own implementation, independent of the runtime). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  return ak.length === Object.keys(bo).length && ak.every((k) => Object.hasOwn(bo, k) && jsonEqual(ao[k], bo[k]));
}

/** `o` with its keys in reverse order: equal under APS equality, different as text. */
function reversedKeys(v: unknown): unknown {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).reverse()) define(out, k, (v as Record<string, unknown>)[k]);
  return out;
}

/** Sets an own, enumerable key, even `__proto__`. */
function define(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The JSON form a request body would have after parsing. */
function asParsedJson(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v)) as unknown;
}

/** Applies mutations in order to a copy of `body`. */
function applyMutations(body: Record<string, unknown>, mutations: readonly Mutation[]): unknown {
  let out: unknown = { ...body };
  for (const m of mutations) {
    if (m.kind === "replace") {
      out = m.value;
      continue;
    }
    if (out === null || typeof out !== "object" || Array.isArray(out)) continue;
    const o = out as Record<string, unknown>;
    if (m.kind === "set") define(o, m.key, m.value);
    else delete o[m.key];
  }
  return out;
}

/**
 * Where a value is generated: its structure nesting, and whether it sits inside an array of
 * structures (then strings stay short, so the array's JSON text stays far below 4000 characters).
 */
interface Ctx {
  readonly depth: number;
  readonly compact: boolean;
}

const ROOT: Ctx = { depth: 0, compact: false };

/** Longest string generated inside an array of structures. */
const COMPACT_STRING = 24;

function deeper(ctx: Ctx, compact = ctx.compact): Ctx {
  return { depth: ctx.depth + 1, compact };
}

/** Builds value arbitraries of one model, memoising structures per depth. */
class ValueArbitraries {
  private readonly structureCache = new Map<string, Arb>();

  constructor(private readonly model: ApsModel) {}

  /** A value that should satisfy the spec (never null). */
  valid(spec: ValueSpec, ctx: Ctx = ROOT): Arb {
    if (spec.enum !== undefined) {
      const values = spec.enum.map(literalJson).filter(isGeneratable);
      if (values.length > 0) return fc.constantFrom(...values);
      // Only 64-bit edge values: generate by type and let the oracle judge.
    }
    const t = spec.type;
    switch (t.kind) {
      case "primitive":
        switch (t.name) {
          case "string":
            return this.validString(spec, ctx);
          case "integer":
          case "long":
            return SAFE_INTEGER;
          case "number":
            return fc.oneof(SAFE_INTEGER, FINITE_DOUBLE);
          case "boolean":
            return fc.boolean();
          case "object":
            return ctx.compact
              ? fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 0 }), {
                  maxKeys: 2,
                  noNullPrototype: true,
                })
              : fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), {
                  maxKeys: 4,
                  noNullPrototype: true,
                });
        }
        return ANY_JSON;
      case "array":
        return this.validArray(spec, t.items, ctx);
      case "structure":
        return this.validStructure(t, ctx);
      case "resource":
      case "self":
        return validLink();
      case "opaque":
      case "unresolved":
        return fc.jsonValue({ maxDepth: 2 }).filter((v) => v !== null);
    }
  }

  /** A value that probably breaks the spec: wrong type, bounds, pattern, enum, items, members. */
  invalid(spec: ValueSpec, ctx: Ctx = ROOT): Arb {
    const options: Arb[] = [ANY_JSON];
    const t = spec.type;
    if (spec.enum !== undefined) options.push(this.valid({ type: spec.type }, ctx));
    switch (t.kind) {
      case "primitive":
        switch (t.name) {
          case "string":
            options.push(fc.constantFrom(0, 12, true, ["x"], { x: "y" }));
            options.push(...this.invalidString(spec, ctx));
            break;
          case "integer":
          case "long":
            options.push(NON_INTEGER, fc.constantFrom("1", "12", true, [1]), SAFE_INTEGER);
            break;
          case "number":
            options.push(fc.constantFrom("1.5", "0", false, [1.5], { n: 1 }));
            break;
          case "boolean":
            options.push(fc.constantFrom("true", "false", 0, 1, [true]));
            break;
          case "object":
            options.push(fc.constantFrom([], [{}], "{}", 1));
            break;
        }
        break;
      case "array":
        options.push(...this.invalidArray(spec, t.items, ctx));
        break;
      case "structure":
        options.push(...this.invalidStructure(t, ctx));
        break;
      case "resource":
      case "self":
        options.push(invalidLink());
        break;
      case "opaque":
      case "unresolved":
        break;
    }
    return fc.oneof(...options);
  }

  private validString(spec: ValueSpec, ctx: Ctx): Arb {
    const min = spec.minLength ?? 0;
    const declaredMax = effectiveMaxLength(spec.maxLength);
    const max = ctx.compact ? Math.min(declaredMax, Math.max(min, COMPACT_STRING)) : declaredMax;
    if (min > max) return fc.string();
    if (spec.pattern !== undefined) {
      let rx: RegExp;
      try {
        rx = new RegExp(spec.pattern);
      } catch {
        rx = compilePattern(spec.pattern);
      }
      return fc.stringMatching(rx).filter((s) => [...s].length >= min && [...s].length <= max);
    }
    const short = Math.min(max, min + 12);
    return fc.oneof(
      { arbitrary: fc.string({ minLength: min, maxLength: short }), weight: 5 },
      { arbitrary: fc.string({ minLength: min, maxLength: short, unit: "binary" }), weight: 2 },
      // Exactly at the bounds, counted in characters (code points).
      { arbitrary: FILL.map((c) => c.repeat(max)), weight: max === declaredMax ? 1 : 0 },
      { arbitrary: FILL.map((c) => c.repeat(min)), weight: 1 },
    );
  }

  private invalidString(spec: ValueSpec, ctx: Ctx): Arb[] {
    const min = spec.minLength ?? 0;
    const max = effectiveMaxLength(spec.maxLength);
    const out: Arb[] = [];
    if (!ctx.compact || max < COMPACT_STRING * 4) out.push(FILL.map((c) => c.repeat(max + 1)));
    if (min > 0) out.push(FILL.map((c) => c.repeat(min - 1)));
    // Random text: rarely matches a pattern or an enum.
    if (spec.pattern !== undefined || spec.enum !== undefined) {
      out.push(fc.string({ maxLength: Math.min(max, 12) }), fc.string({ maxLength: 8, unit: "binary" }));
    }
    // Lone surrogates count as one character each.
    out.push(fc.constantFrom("\ud800", "a\udc00b"));
    return out;
  }

  private validArray(spec: ValueSpec, items: TypeRef, ctx: Ctx): Arb {
    const min = spec.minItems ?? 0;
    const cap = items.kind === "structure" ? MAX_STRUCTURE_ITEMS : MAX_PRIMITIVE_ITEMS;
    const max = Math.max(min, Math.min(spec.maxItems ?? cap, cap));
    const item = this.valid({ type: items }, itemCtx(ctx, items));
    const sized = (lo: number, hi: number): Arb =>
      spec.uniqueItems
        ? fc.uniqueArray(item, { minLength: lo, maxLength: hi, comparator: jsonEqual })
        : fc.array(item, { minLength: lo, maxLength: hi });
    const options: fc.WeightedArbitrary<unknown>[] = [{ arbitrary: sized(min, max), weight: 4 }];
    // Exactly maxItems, when that is affordable.
    if (spec.maxItems !== undefined && spec.maxItems > max && spec.maxItems <= 30 && items.kind !== "structure") {
      options.push({ arbitrary: sized(spec.maxItems, spec.maxItems), weight: 1 });
    }
    return fc.oneof(...options);
  }

  private invalidArray(spec: ValueSpec, items: TypeRef, ctx: Ctx): Arb[] {
    const inner = itemCtx(ctx, items);
    const item = this.valid({ type: items }, inner);
    const bad = this.invalid({ type: items }, inner);
    const out: Arb[] = [
      fc.constantFrom("[]", {}, 1),
      // One broken or null item among valid ones.
      fc.tuple(fc.array(item, { maxLength: 2 }), fc.oneof(bad, fc.constant(null))).map(([xs, x]) => [...xs, x]),
      // Mixed JSON types: 1 and "1" differ under APS equality.
      fc.constantFrom([1, "1"], ["1", "1"], [true, "true"], [{}, {}], [[], []]),
    ];
    if (spec.maxItems !== undefined && items.kind !== "structure" && spec.maxItems < 40) {
      out.push(
        fc.uniqueArray(item, { minLength: spec.maxItems + 1, maxLength: spec.maxItems + 1, comparator: jsonEqual }),
      );
    } else if (spec.maxItems !== undefined && items.kind === "structure" && spec.maxItems < 12) {
      out.push(fc.array(item, { minLength: spec.maxItems + 1, maxLength: spec.maxItems + 1 }));
    }
    if (spec.minItems !== undefined && spec.minItems > 0) {
      out.push(
        fc.uniqueArray(item, { minLength: spec.minItems - 1, maxLength: spec.minItems - 1, comparator: jsonEqual }),
      );
    }
    // Duplicates: the same item twice, or an object and its key-reversed copy.
    out.push(fc.tuple(item, fc.array(item, { maxLength: 1 })).map(([x, rest]) => [x, ...rest, reversedKeys(x)]));
    return out;
  }

  private validStructure(ref: { typeId: string; name: string }, ctx: Ctx): Arb {
    const depth = ctx.depth;
    const key = `${ref.typeId}#${ref.name}@${Math.min(depth, MAX_DEPTH)}${ctx.compact ? "c" : ""}`;
    const cached = this.structureCache.get(key);
    if (cached) return cached;
    if (depth > 3 * MAX_DEPTH) throw new Error(`arbitraries: structure ${ref.name} requires itself`);
    const s = resolveStructure(this.model, ref);
    const model: Record<string, Arb> = {};
    const required: string[] = [];
    for (const m of s.properties.values()) {
      if (!m.required && depth >= MAX_DEPTH) continue;
      model[m.name] = this.valid(m, deeper(ctx));
      if (m.required) required.push(m.name);
    }
    const arb: Arb = fc.record(model, { requiredKeys: required, noNullPrototype: true });
    this.structureCache.set(key, arb);
    return arb;
  }

  private invalidStructure(ref: { typeId: string; name: string }, ctx: Ctx): Arb[] {
    const depth = ctx.depth;
    const s = resolveStructure(this.model, ref);
    const base = this.validStructure(ref, ctx) as fc.Arbitrary<Record<string, unknown>>;
    const members = [...s.properties.values()];
    const out: Arb[] = [
      fc.constantFrom([], "{}", 0),
      // `aps` is special only at the top level of a body.
      fc
        .tuple(base, unknownKey([...members.map((m) => m.name)], ["aps"]), ANY_JSON)
        .map(([o, k, v]) => applyMutations(o, [{ kind: "set", key: k, value: v }])),
    ];
    if (members.length > 0) {
      const member = fc.constantFrom(...members);
      // A member set to null (an error even when optional), or missing.
      out.push(fc.tuple(base, member).map(([o, m]) => applyMutations(o, [{ kind: "set", key: m.name, value: null }])));
      out.push(fc.tuple(base, member).map(([o, m]) => applyMutations(o, [{ kind: "delete", key: m.name }])));
      // A member with a broken value.
      if (depth < MAX_DEPTH) {
        out.push(
          fc.oneof(
            ...members.map((m) =>
              fc
                .tuple(base, this.invalid(m, deeper(ctx)))
                .map(([o, v]) => applyMutations(o, [{ kind: "set", key: m.name, value: v }])),
            ),
          ),
        );
      }
    }
    return out;
  }
}

/**
 * ajv compares values for `uniqueItems` and `enum` with fast-deep-equal, which calls an object's
 * own `valueOf`/`toString` and throws when they are data. Such keys stay at the top level, where
 * no comparison reaches them.
 */
function hasNestedMethodKey(v: unknown, depth: number): boolean {
  if (v === null || typeof v !== "object") return false;
  if (Array.isArray(v)) return v.some((x) => hasNestedMethodKey(x, depth + 1));
  if (depth > 0 && (Object.hasOwn(v, "valueOf") || Object.hasOwn(v, "toString"))) return true;
  return Object.values(v).some((x) => hasNestedMethodKey(x, depth + 1));
}

/**
 * Integers between 2^53 and 2^64 in magnitude: as JS numbers they cannot tell the signed 64-bit
 * bounds apart (9223372036854775807 reads as 2^63), so the oracle differs there on purpose.
 * (Arbitrary doubles such as `fc.jsonValue()` yields can land there, rarely.)
 */
function hasEdgeInteger(v: unknown): boolean {
  if (typeof v === "number")
    return Number.isInteger(v) && Math.abs(v) > Number.MAX_SAFE_INTEGER && Math.abs(v) <= 2 ** 64;
  if (v === null || typeof v !== "object") return false;
  return Object.values(v).some(hasEdgeInteger);
}

/** Items of an array of structures are generated compact. */
function itemCtx(ctx: Ctx, items: TypeRef): Ctx {
  return deeper(ctx, ctx.compact || items.kind === "structure");
}

function isGeneratable(v: unknown): boolean {
  return typeof v !== "number" || !Number.isInteger(v) || Number.isSafeInteger(v);
}

/** `{aps: {id}}`, sometimes with more keys inside `aps` or beside it. */
function validLink(): Arb {
  return fc.record(
    {
      aps: fc.record(
        {
          id: fc.string({ maxLength: 36 }),
          type: fc.constant("http://example.com/t/1.0"),
          href: fc.string({ maxLength: 10 }),
        },
        { requiredKeys: ["id"], noNullPrototype: true },
      ),
      title: fc.string({ maxLength: 6 }),
    },
    { requiredKeys: ["aps"], noNullPrototype: true },
  );
}

function invalidLink(): Arb {
  return fc.constantFrom<unknown>(
    "id-1",
    7,
    [],
    {},
    { id: "x" },
    { aps: null },
    { aps: "x" },
    { aps: {} },
    { aps: { id: 1 } },
    { aps: { id: null } },
    { aps: [] },
    [{ aps: { id: "x" } }],
  );
}

/** A key that is usually none of `declared`. */
function unknownKey(declared: readonly string[], more: readonly string[] = []): fc.Arbitrary<string> {
  const near = declared.flatMap((d) => [`${d}_`, d.toUpperCase() === d ? d.toLowerCase() : d.toUpperCase()]);
  return fc.oneof(fc.constantFrom(...STRANGE_KEYS, ...more, ...near), fc.string({ minLength: 1, maxLength: 8 }));
}

/**
 * Which bodies to generate: `valid` only valid-looking ones (no mutation), `broken` only ones with
 * one or two mutations, `mixed` (the default) both, about 2 : 3.
 */
export type BodyMix = "mixed" | "valid" | "broken";

/** A body arbitrary for `mode` bodies of one type written by `actor`. */
export function bodyArbitrary(
  model: ApsModel,
  typeId: string,
  mode: OracleMode,
  actor: OracleActor,
  mix: BodyMix = "mixed",
): fc.Arbitrary<unknown> {
  const type = model.types.get(typeId);
  if (!type) throw new Error(`arbitraries: type ${typeId} is not in the model`);
  const values = new ValueArbitraries(model);
  const props = [...type.properties.values()];
  const relations = [...type.relations.values()];

  // A valid-looking body: what the actor may send, required keys always, values valid or null.
  const baseModel: Record<string, Arb> = {};
  const required: string[] = [];
  for (const p of props) {
    const rule = propertyRule(p, mode, actor);
    if (!rule.allowed) continue;
    const v = values.valid(p);
    baseModel[p.name] = rule.nullable
      ? fc.oneof({ arbitrary: v, weight: 6 }, { arbitrary: fc.constant(null), weight: 1 })
      : v;
    if (rule.required) required.push(p.name);
  }
  if (mode === "create") {
    for (const r of relations) {
      baseModel[r.name] = r.collection
        ? fc.array(validLink(), { maxLength: 3 })
        : fc.oneof(validLink(), fc.constant(null));
    }
  }
  baseModel.aps = fc.oneof(fc.constant({ type: typeId }), ANY_JSON);
  const base = fc.record(baseModel, { requiredKeys: required, noNullPrototype: true }) as fc.Arbitrary<
    Record<string, unknown>
  >;

  const mutations: fc.WeightedArbitrary<Mutation>[] = [];
  const set = (key: string, value: Arb, weight: number) =>
    mutations.push({ arbitrary: value.map((v): Mutation => ({ kind: "set", key, value: v })), weight });

  for (const p of props) {
    const rule = propertyRule(p, mode, actor);
    // Broken values, and null (an error for required properties).
    set(p.name, values.invalid(p), 3);
    set(p.name, fc.constant(null), 1);
    // Forbidden for this actor and mode (readonly, access, final on update): a valid value.
    if (!rule.allowed) set(p.name, values.valid(p), 3);
    if (p.required) mutations.push({ arbitrary: fc.constant<Mutation>({ kind: "delete", key: p.name }), weight: 2 });
  }
  for (const r of relations) {
    const link = validLink();
    const good = r.collection ? fc.array(link, { maxLength: 2 }) : link;
    // On update every relation key is unknown; on create the value must be a link (or links).
    set(r.name, good, mode === "update" ? 2 : 1);
    set(
      r.name,
      fc.oneof(
        invalidLink(),
        fc.constant(null),
        fc.array(fc.oneof(link, invalidLink(), fc.constant(null)), { minLength: 1, maxLength: 2 }),
      ),
      2,
    );
  }
  const declared = [...props.map((p) => p.name), ...relations.map((r) => r.name)];
  mutations.push({
    arbitrary: fc.tuple(unknownKey(declared), ANY_JSON).map(([key, value]): Mutation => ({ kind: "set", key, value })),
    weight: 4,
  });
  mutations.push({
    arbitrary: fc
      .constantFrom<unknown>(null, [], [{}], "body", 42, true)
      .map((value): Mutation => ({ kind: "replace", value })),
    weight: 1,
  });
  mutations.push({ arbitrary: fc.constant<Mutation>({ kind: "delete", key: "aps" }), weight: 1 });

  const none = fc.constant<Mutation[]>([]);
  const some = fc.array(fc.oneof(...mutations), { minLength: 1, maxLength: 2 });
  const changes =
    mix === "valid"
      ? none
      : mix === "broken"
        ? some
        : fc.oneof({ arbitrary: none, weight: 2 }, { arbitrary: some, weight: 3 });
  return fc
    .tuple(base, changes)
    .map(([b, ms]) => asParsedJson(applyMutations(b, ms)))
    .filter((b) => !hasNestedMethodKey(b, 0) && !hasEdgeInteger(b));
}
