/**
 * The request a custom operation's form stands for (docs/aps/rest-api.md, "Custom operations"):
 * `<verb> /aps/2/resources/<id>/<path>?<query>` on a resource, `/aps/2/static/<type id>/<path>`
 * for a static one, path parameters put into the path's `{name}` places, query parameters into
 * the query, the body parameter as the JSON body.
 */
import type { ApsCall } from "../../../runtime/client/client.ts";
import type { OperationDecl } from "./declaration.ts";

/** What an operation form holds (form-model.ts operationForm): parameter text by kind, and the body. */
export interface OperationValues {
  readonly path?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

/** Where the operations of a resource, or the static ones of a type, are served. */
export function operationBase(target: { readonly resource: string } | { readonly type: string }): string {
  return "resource" in target
    ? `/aps/2/resources/${encodeURIComponent(target.resource)}`
    : `/aps/2/static/${encodeURIComponent(target.type)}`;
}

/** The call of `op` with `values` below `base` (operationBase). */
export function operationRequest(op: OperationDecl, values: OperationValues, base: string): ApsCall {
  const path = op.path.replace(/\{([^}]*)\}/g, (_m, name: string) => encodeURIComponent(values.path?.[name] ?? ""));
  const query = Object.entries(values.query ?? {})
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join("&");
  const rest = path.replace(/^\/+/, "");
  return {
    method: op.verb.toUpperCase() as ApsCall["method"],
    path: rest ? `${base}/${rest}` : base,
    ...(query ? { query } : {}),
    ...(values.body !== undefined ? { json: values.body } : {}),
  };
}
