/**
 * Where a request below a resource (`/aps/2/resources/<id>/<rest>`) goes, decided here once:
 * enable/disable, the list of its links, a relation's listing, linking and unlinking, or else a
 * custom operation (docs/aps/rest-api.md, "Custom operations"). Subscriptions
 * (`.../aps/subscriptions`, routes/subscriptions.ts) and the notification manager's
 * `.../notifications` are Hono routes mounted before this one.
 *
 * A path names a relation only when the resource's type declares one of that name: another type
 * may have a custom operation on the same path.
 */
import { ControllerError } from "../support/errors.ts";

export type ResourceSubPath =
  /** `PUT .../enable` or `.../disable` (core/suspendable). */
  | { readonly to: "suspension"; readonly disable: boolean }
  /** `GET .../aps/links`: every link of the resource. */
  | { readonly to: "links" }
  /** `GET .../<relation>`: the resources it links to. */
  | { readonly to: "related"; readonly relation: string }
  /** `POST .../<relation>`: link a resource (or provision one through the relation). */
  | { readonly to: "link"; readonly relation: string }
  /** `DELETE .../<relation>/<id>`: unlink it. */
  | { readonly to: "unlink"; readonly relation: string; readonly other: string }
  | { readonly to: "operation" };

/** What the router asks about the relations of the resource. */
export interface RelationQuestions {
  /** Whether some type has a relation of this name: answered from the registry, without a read. */
  isRelationName(name: string): boolean;
  /** Whether the resource's own type declares it: reads the resource. */
  declares(relation: string): Promise<boolean>;
}

/** `/<relation>` or `/<relation>/<id>` below a resource. */
const RELATION_PATH = /^\/([A-Za-z_][A-Za-z0-9_]*)(?:\/([0-9a-fA-F-]{36}))?\/?$/;

/**
 * Where `method rest` goes; `rest` is the tidied path below the resource (support/request-path.ts).
 * The resource is read only for a path that names a relation some type has. 405 for a relation's
 * path with a method it does not take.
 */
export async function resourceSubPath(
  method: string,
  rest: string,
  relations: RelationQuestions,
): Promise<ResourceSubPath> {
  const found = byPath(method, rest, relations);
  if ("to" in found) return found;
  const { relation, other } = found;
  if (!(await relations.declares(relation))) return { to: "operation" };
  if (method === "GET" && !other) return { to: "related", relation };
  if (method === "POST" && !other) return { to: "link", relation };
  if (method === "DELETE" && other) return { to: "unlink", relation, other };
  throw new ControllerError(
    405,
    `${method} is not a link operation; use GET or POST .../${relation} and DELETE .../${relation}/<id>.`,
  );
}

/**
 * Whether deciding where `method rest` goes reads the database, or where it goes is a read of it
 * (aps/links, a relation's path): a GET is then decided and answered in one read, on the database
 * the read runs on (resources/read-views.ts).
 */
export function decidedByRead(
  method: string,
  rest: string,
  relations: Pick<RelationQuestions, "isRelationName">,
): boolean {
  const found = byPath(method, rest, relations);
  return !("to" in found) || found.to === "links";
}

/** What the path alone decides, or the relation (and member) it names when some type has a relation of that name. */
function byPath(
  method: string,
  rest: string,
  relations: Pick<RelationQuestions, "isRelationName">,
): ResourceSubPath | { readonly relation: string; readonly other: string | undefined } {
  if (method === "PUT" && (rest === "/enable" || rest === "/disable"))
    return { to: "suspension", disable: rest === "/disable" };
  if (method === "GET" && rest === "/aps/links") return { to: "links" };
  const m = RELATION_PATH.exec(rest);
  if (!m || !relations.isRelationName(m[1]!)) return { to: "operation" };
  return { relation: m[1]!, other: m[2] };
}
