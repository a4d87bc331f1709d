/**
 * Lists that cost what their page holds (runtime/controller/store/property-indexes.ts,
 * rql-sql.ts, resource-store.ts `list`): `eq` on a property the listed type declares asks for
 * that property's index and is written in the form the index holds, so the planner reads the
 * page from it, for the provider's administrator as for a customer; `Content-Range` totals are
 * exact up to EXACT_COUNT_LIMIT matches and PostgreSQL's estimate beyond. In process, on PGlite
 * and, with DATABASE_URL, on PostgreSQL.
 */
import { PgDialect } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRql } from "../../runtime/common/rql.ts";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import type { Caller } from "../../runtime/controller/auth/caller.ts";
import { typeRegistry, type TypeRegistry } from "../../runtime/controller/registry.ts";
import { propertyIndex } from "../../runtime/controller/store/property-indexes.ts";
import { EXACT_COUNT_LIMIT } from "../../runtime/controller/store/resource-store.ts";
import { readableProperty, visibleRows } from "../../runtime/controller/store/role-sql.ts";
import { filterScope, filterSql } from "../../runtime/controller/store/rql-sql.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { controllerModel } from "../helpers/controller-model.ts";
import { until } from "../helpers/until.ts";
import { databases, startBehaviourController, type BehaviourController } from "./harness.ts";

const NOTE = "http://notes.example/types/note/1.0";
const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";
const SIZE_INDEX = propertyIndex(NOTE, "size").name;

describe.each(databases)("lists at index speed on %s", (kind) => {
  let t: BehaviourController;
  let registry: TypeRegistry;
  let customer: { token: string; id: string; path: string };
  let provider: { id: string; path: string };

  beforeAll(async () => {
    t = await startBehaviourController(kind, ["test/fixtures/controller/notes"]);
    registry = typeRegistry((await controllerModel(["test/fixtures/controller/notes"])).types);
    const account = await t.call("POST", "/aps/2/resources", {
      token: t.adminToken,
      body: { aps: { type: ACCOUNT }, companyName: "Lists", addressPostal: {} },
    });
    const [row] = await t.sql(`select id, owner_path from resources where id = '${account.json.aps.id}'`);
    const [root] = await t.sql(`select id, owner_path from resources where owner_path = '/' || id || '/'`);
    provider = { id: String(root!.id), path: String(root!.owner_path) };
    customer = {
      token: await new TokenService(loadKeys(t.dataDir).token).mint({ accountId: String(row!.id) }),
      id: String(row!.id),
      path: String(row!.owner_path),
    };
    // 3,000 notes of the customer's, sizes 0..999 three times, straight into the table.
    await t.sql(`insert into resources (id, type_id, status, revision, created, modified, owner_account, owner_path, body)
      select gen_random_uuid(), '${NOTE}', 'aps:ready', 1, now(), now(), '${customer.id}', '${customer.path}', jsonb_build_object('title', 'note ' || i, 'size', i % 1000)
      from generate_series(1, 3000) as i`);
  }, 90_000);
  afterAll(async () => t?.dispose());

  const list = (query: string, token = t.adminToken) =>
    t.call("GET", `/aps/2/resources?implementing(${encodeURIComponent(NOTE)}),${query}`, { token });

  it("makes the index of a declared property the first list compares, and the list's statement reads the page from it", async () => {
    expect(await t.sql(`select 1 from pg_class where relname = '${SIZE_INDEX}'`)).toEqual([]);
    const first = await list("eq(size,500),limit(0,2)");
    expect(first.status, first.text).toBe(200);
    expect(first.headers["content-range"]).toBe("items 0-1/3");
    await until(
      "the size index",
      async () =>
        (
          await t.sql(
            `select 1 from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = '${SIZE_INDEX}' and i.indisvalid`,
          )
        ).length > 0,
    );
    await t.sql("analyze resources");
    for (const caller of [
      { kind: "user", accountId: provider.id, accountPath: provider.path },
      { kind: "user", accountId: customer.id, accountPath: customer.path },
    ] satisfies Caller[]) {
      expect(await plan(caller, "eq(size,500)"), JSON.stringify(caller)).toContain(SIZE_INDEX);
    }
    // The same answers as before the index, for both callers.
    for (const token of [t.adminToken, customer.token]) {
      const r = await list("eq(size,500),limit(0,10)", token);
      expect(r.json.map((n: { title: string }) => n.title).sort()).toEqual(["note 1500", "note 2500", "note 500"]);
      expect(r.headers["content-range"]).toBe("items 0-2/3");
    }
  });

  it("compares a declared property as its declared kind, and a negation keeps the rows that lack it", async () => {
    expect((await list("eq(size,500.0)")).json).toHaveLength(3);
    expect((await list("eq(size,abc)")).json).toEqual([]);
    expect((await list("eq(title,note%20500)")).json).toHaveLength(1);
    const titled = await t.call("POST", "/aps/2/resources", {
      token: customer.token,
      body: { aps: { type: NOTE }, title: "no size" },
    });
    expect(titled.status, titled.text).toBe(201);
    expect(
      (await list("ne(size,500),eq(title,no%20size)", customer.token)).json.map((n: { title: string }) => n.title),
    ).toEqual(["no size"]);
    expect((await list("not(eq(size,500)),eq(title,no%20size)", customer.token)).json).toHaveLength(1);
  });

  it("counts totals exactly up to the limit and past it gives PostgreSQL's estimate, never less", async () => {
    const exact = await list("limit(0,10)");
    expect(exact.headers["content-range"]).toBe("items 0-9/3001");
    // A page past the end still says the total, and a short last page needs no count.
    expect((await list("limit(5000,10)")).headers["content-range"]).toBe("items */3001");
    expect((await list("limit(2995,10)")).headers["content-range"]).toBe("items 2995-3000/3001");
    await t.sql(`insert into resources (id, type_id, status, revision, created, modified, owner_account, owner_path, body)
      select gen_random_uuid(), '${NOTE}', 'aps:ready', 1, now(), now(), '${customer.id}', '${customer.path}', jsonb_build_object('title', 'more ' || i, 'size', 1000 + i)
      from generate_series(1, ${EXACT_COUNT_LIMIT}) as i`);
    await t.sql("analyze resources");
    const estimated = await list("limit(0,10)");
    const total = Number(/\/(\d+)$/.exec(estimated.headers["content-range"] as string)?.[1]);
    expect(total).toBeGreaterThan(EXACT_COUNT_LIMIT);
    // The statistics of a freshly analysed table: within a few percent of the truth.
    expect(Math.abs(total - (EXACT_COUNT_LIMIT + 3001)) / (EXACT_COUNT_LIMIT + 3001)).toBeLessThan(0.2);
    expect(estimated.json).toHaveLength(10);
  });

  /** The plan of the page statement a list sends for `filter` as `caller`, as EXPLAIN prints it. */
  async function plan(caller: Caller, filter: string): Promise<string> {
    const query = parseRql(`implementing(${encodeURIComponent(NOTE)}),${filter}`);
    const scope = filterScope(query.filter, registry);
    const where = filterSql(query.filter!, registry, (prop) => readableProperty(registry, prop, caller, scope), scope);
    const { sql: text, params } = new PgDialect().sqlToQuery(where);
    const inline = text.replace(/\$(\d+)/g, (_, n: string) => `'${String(params[Number(n) - 1]).replace(/'/g, "''")}'`);
    const { sql: visible, params: vp } = new PgDialect().sqlToQuery(visibleRows(registry, caller, scope));
    const visibleInline = visible.replace(
      /\$(\d+)/g,
      (_, n: string) => `'${String(vp[Number(n) - 1]).replace(/'/g, "''")}'`,
    );
    const rows = await t.sql(
      `explain select * from resources where ${visibleInline} and ${inline} order by seq limit 10`,
    );
    return rows.map((r) => String(Object.values(r)[0])).join("\n");
  }
});
