/**
 * Finds the custom operation (docs/aps/rest-api.md, "Custom operations") a request path names, with
 * a Hono router compiled once per type, as the connector runtime routes the same operations on the
 * endpoint side. Imports replace the registry whole, so the routers are cached by the RegistryType
 * object itself and go with it. Trailing and repeated slashes and percent-encoding are dealt with
 * here, once: a parameter is decoded exactly once (`%2F` stays inside its segment, `%25` is one
 * `%`), a literal segment may be written escaped (`us%61ge`), and a malformed escape is the
 * caller's 400.
 */
import type { Result } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";
import { ControllerError } from "../support/errors.ts";
import type { RegistryOperation, RegistryType } from "../registry.ts";
import { tidyPath } from "../support/request-path.ts";
import { fillPath, routePattern } from "../../common/path-template.ts";

/** The operation a path names. */
interface OperationMatch {
  readonly name: string;
  readonly operation: RegistryOperation;
  /** Path parameters, percent-decoded. */
  readonly params: Record<string, string>;
  /**
   * The declared path with the values filled in and escaped again: what the application gets,
   * whatever slashes or escapes the caller wrote (strict routers such as FastAPI's match it).
   */
  readonly path: string;
}

/** A route: an operation under its verb, or a marker under every verb that the path exists (for 405). */
type Entry = { readonly name: string; readonly operation: RegistryOperation } | { readonly known: true };
const KNOWN: Entry = { known: true };

/** The custom operations of one type that share `static`, compiled into a router. */
class OperationRoutes {
  private readonly router = new SmartRouter<Entry>({ routers: [new RegExpRouter(), new TrieRouter()] });
  /** `VERB /path` of each operation, for error messages. */
  private readonly listing: string[] = [];

  constructor(operations: readonly [string, RegistryOperation][]) {
    for (const [name, operation] of operations) {
      const path = routePath(operation.path);
      this.router.add(operation.verb, path, { name, operation });
      this.router.add("ALL", path, KNOWN);
      this.listing.push(`${operation.verb} ${operation.path}`);
    }
  }

  /** The operation `method rest` names; 404 when no operation has the path, 405 when only other verbs do. */
  find(typeName: string, method: string, rest: string): OperationMatch {
    const path = decodedForRouting(tidyPath(rest.startsWith("/") ? rest : `/${rest}`));
    const found = this.listing.length ? matches(this.router.match(method, path)) : [];
    const hit = found.find((m) => "name" in m.entry);
    if (!hit) {
      const known = found.length > 0;
      throw new ControllerError(
        known ? 405 : 404,
        `${typeName} has no operation ${method} ${path}${this.listing.length ? `; it has ${this.listing.join(", ")}` : ""}.`,
      );
    }
    const { name, operation } = hit.entry as Extract<Entry, { name: string }>;
    const params: Record<string, string> = {};
    for (const [key, value] of Object.entries(hit.params)) params[key] = decodeOnce(value, path);
    const filled = fillPath(declaredPath(operation.path), (key) => encodeURIComponent(params[key] ?? ""));
    return { name, operation, params, path: filled };
  }
}

const cache = new WeakMap<RegistryType, { instance?: OperationRoutes; static?: OperationRoutes }>();

/** The compiled routes of `type`'s custom operations on a resource (`isStatic` false) or on the type. */
export function operationRoutes(type: RegistryType, isStatic: boolean): OperationRoutes {
  let entry = cache.get(type);
  if (!entry) cache.set(type, (entry = {}));
  const key = isStatic ? "static" : "instance";
  return (entry[key] ??= new OperationRoutes(
    Object.entries(type.operations).filter(([, op]) => !op.base && op.static === isStatic),
  ));
}

/** A declared path with a leading and no trailing slash (declarations write it with or without the `/`). */
function declaredPath(template: string): string {
  return tidyPath(template.startsWith("/") ? template : `/${template}`);
}

/** A declared path in Hono's syntax: `{day}` is `:day`. */
function routePath(template: string): string {
  return routePattern(declaredPath(template));
}

/**
 * What the router matches: escapes of characters that cannot split a segment decoded (so that
 * `us%61ge` is `usage`), `%2F` and the other reserved escapes kept, `%25` kept as `%25` so that
 * the parameter is decoded once and only once afterwards (the same rule as Hono's own getPath).
 */
function decodedForRouting(path: string): string {
  if (!path.includes("%")) return path;
  try {
    return decodeURI(path.replace(/%25/g, "%2525"));
  } catch {
    throw malformed(path);
  }
}

function decodeOnce(value: string, path: string): string {
  if (!value.includes("%")) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    throw malformed(path);
  }
}

function malformed(path: string): ControllerError {
  return new ControllerError(400, `The operation path ${JSON.stringify(path.slice(0, 200))} has a malformed %-escape.`);
}

/** The matches of a Hono router result with their parameters by name (the result has two shapes). */
function matches(result: Result<Entry>): { entry: Entry; params: Record<string, string> }[] {
  const [found, stash] = result as [[Entry, Record<string, string | number>][], string[] | undefined];
  return found.map(([entry, params]) => ({
    entry,
    params: stash
      ? Object.fromEntries(Object.entries(params).map(([k, i]) => [k, stash[i as number] ?? ""]))
      : (params as Record<string, string>),
  }));
}
