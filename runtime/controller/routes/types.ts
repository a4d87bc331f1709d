/** `/aps/2/types` (SPEC 4.1, 4.2): the types this controller knows, filtered with RQL. */
import { Hono } from "hono";
import { parseRql, RqlError, type RqlFilter } from "../../common/rql.ts";
import type { ControllerEnv } from "../context.ts";
import { ApsError } from "../errors.ts";
import { contentRange, sendJson } from "../http-json.ts";
import { decodePathText } from "../path-text.ts";
import type { PackageCatalog } from "../packages/catalog.ts";
import type { RegistryType, TypeRegistry } from "../registry.ts";

/** The type routes over the catalog (read at each request, so imported packages show at once). */
export function typeRoutes(catalog: PackageCatalog): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  app.get("/", async (c) => {
    await catalog.refresh();
    const url = c.req.url;
    const q = url.indexOf("?");
    let query;
    try {
      query = parseRql(q < 0 ? "" : url.slice(q + 1));
    } catch (error) {
      if (error instanceof RqlError) throw new ApsError(400, `The query is not valid RQL: ${error.message}.`);
      throw error;
    }
    const types = catalog.registry;
    const all = [...types.values()].filter((t) => !query.filter || matches(query.filter, t, types));
    const start = query.limit?.start ?? 0;
    const page = all.slice(start, start + (query.limit?.count ?? 1000));
    return sendJson(c, page.map(typeView), 200, { "Content-Range": contentRange(start, page.length, all.length) });
  });
  app.get("/*", async (c) => {
    const rest = decodePathText(new URL(c.req.url).pathname.replace(/^.*?\/aps\/2\/types\//, ""), "type id");
    if (!catalog.registry.has(rest)) await catalog.refresh();
    const type = catalog.registry.get(rest);
    if (!type) throw new ApsError(404, `Type ${rest} is not known to this controller; list the known ones at /aps/2/types.`);
    return sendJson(c, typeView(type));
  });
  return app;
}

function matches(f: RqlFilter, t: RegistryType, types: TypeRegistry): boolean {
  switch (f.op) {
    case "and":
      return f.args.every((a) => matches(a, t, types));
    case "or":
      return f.args.some((a) => matches(a, t, types));
    case "not":
      return !matches(f.arg, t, types);
    case "implementing":
      return t.id === f.typeId || t.ancestors.includes(f.typeId);
    case "composing":
      // The types that the given type implements, itself included.
      return t.id === f.typeId || (types.get(f.typeId)?.ancestors.includes(t.id) ?? false);
    case "eq":
    case "ne": {
      const value = field(t, f.prop);
      return (value === f.value) === (f.op === "eq");
    }
    default:
      throw new ApsError(400, `Type lists support implementing, composing, eq and ne on id and name, and and/or/not; not ${f.op}.`);
  }
}

function field(t: RegistryType, prop: string): string {
  if (prop === "id" || prop === "aps.id") return t.id;
  if (prop === "name") return t.name;
  throw new ApsError(400, `Types can be filtered by id or name, not by ${prop}.`);
}

function typeView(t: RegistryType): Record<string, unknown> {
  return { id: t.id, name: t.name, apsVersion: "2.0", implements: t.ancestors, properties: t.properties, relations: t.relations, operations: t.operations };
}
