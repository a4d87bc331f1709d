/** `/aps/2/types` (docs/aps/rest-api.md, "Collections"; docs/aps/types.md): the types this controller knows, as declared (type-document.ts), filtered with RQL. */
import { Hono } from "hono";
import { parseRql, RqlError, type RqlFilter, type RqlQuery } from "../../common/rql.ts";
import type { ControllerEnv } from "../context.ts";
import { ControllerError } from "../support/errors.ts";
import { sendJson, sendList } from "../support/http-json.ts";
import { decodePathText } from "../support/path-text.ts";
import type { PackageCatalog } from "../packages/catalog.ts";
import type { RegistryType, TypeRegistry } from "../registry.ts";
import { typeDocument } from "../type-document.ts";

/** The type routes over the catalog (read at each request, so imported packages show at once). */
export function typeRoutes(catalog: PackageCatalog): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  app.get("/", async (c) => {
    await catalog.refresh();
    const url = c.req.url;
    const q = url.indexOf("?");
    let query: RqlQuery;
    try {
      query = parseTypeQuery(q < 0 ? "" : url.slice(q + 1));
    } catch (error) {
      if (error instanceof RqlError) throw new ControllerError(400, `The query is not valid RQL: ${error.message}.`);
      throw error;
    }
    const types = catalog.registry;
    const all = [...types.values()].filter((t) => !query.filter || matches(query.filter, t, types));
    const start = query.limit?.start ?? 0;
    const page = all.slice(start, start + (query.limit?.count ?? 1000));
    return sendList(c, page.map(typeDocument), start, all.length);
  });
  app.get("/*", async (c) => {
    const rest = decodePathText(
      new URL(c.req.url).pathname.replace(/^.*?\/aps\/2\/types\//, "").replace(/\/$/, ""),
      "type id",
    );
    if (!catalog.registry.has(rest)) await catalog.refresh();
    const type = catalog.registry.get(rest);
    if (!type)
      throw new ControllerError(
        404,
        `Type ${rest} is not known to this controller; list the known ones at /aps/2/types.`,
      );
    return sendJson(c, typeDocument(type));
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
      throw new ControllerError(
        400,
        `Type lists support implementing, composing, eq and ne on id and name, and and/or/not; not ${f.op}.`,
      );
  }
}

function field(t: RegistryType, prop: string): string {
  if (prop === "id" || prop === "aps.id") return t.id;
  if (prop === "name") return t.name;
  throw new ControllerError(400, `Types can be filtered by id or name, not by ${prop}.`);
}

/**
 * RQL, or the short FIQL form `prop=value` (several joined by `&` mean all of them), which the
 * Connect extension sends as `aps/2/types?id=<type id>` with the id not encoded (hub/services.py:921-928).
 */
function parseTypeQuery(text: string): RqlQuery {
  const parts = text.split("&");
  if (text === "" || !parts.every((p) => FIQL_EQUALITY.test(p))) return parseRql(text);
  const args = parts.map((p): RqlFilter => {
    const at = p.indexOf("=");
    return { op: "eq", prop: p.slice(0, at), value: decodeQueryValue(p.slice(at + 1)) };
  });
  return { filter: args.length === 1 ? args[0]! : { op: "and", args }, sort: [] };
}

/** A percent-decoded query value; a malformed escape is the caller's 400. */
function decodeQueryValue(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new ControllerError(400, `The query value ${JSON.stringify(text.slice(0, 200))} has a malformed %-escape.`);
  }
}

/** `name=value` with no RQL call in it. */
const FIQL_EQUALITY = /^[A-Za-z_][\w.]*=[^()=]*$/;
