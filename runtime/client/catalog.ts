/**
 * What the controller knows (SPEC 4.1, 4.2): types (`/aps/2/types`, RQL with `implementing` and
 * `composing`) and packages (`/aps/2/packages`: details, `APP-META.xml`, files, and the provider's
 * import of an `.app.zip`).
 */
import { segment, send, sendJson, type ApsClient, type RawBody } from "./client.ts";
import { listPage, type Page } from "./pages.ts";
import { rqlText } from "./rql.ts";

/** A type as `/aps/2/types` describes it: its APS JSON declaration as written, own members only. */
export interface TypeInfo {
  readonly aps: { readonly id: string; readonly href: string };
  readonly id: string;
  readonly name: string;
  readonly apsVersion: string;
  /** The types it implements directly, as declared (their own documents name theirs). */
  readonly implements?: readonly string[];
  readonly properties?: Record<string, unknown>;
  readonly relations?: Record<string, unknown>;
  readonly operations?: Record<string, unknown>;
  readonly structures?: Record<string, unknown>;
}

/** A package as `/aps/2/packages` describes it. */
export interface PackageInfo {
  readonly id: string;
  readonly appId: string;
  /** APP-META.xml `<name>`. */
  readonly name: string;
  /** The package's slug (its folder or archive name). */
  readonly slug: string;
  readonly version: string;
  readonly release: string;
  readonly origin: string;
  /** Its services by id, with the type each serves and where that type's document is. */
  readonly services: Record<string, { readonly type: string; readonly schema: string }>;
  /** The ids of the types it declares. */
  readonly types: readonly string[];
  readonly href: string;
}

/** Which types to list: those implementing a type (itself included), those a type is composed of, or an RQL text of your own. */
export type TypeQuery = { readonly implementing: string } | { readonly composing: string } | { readonly rql: string };

/** One page of types. */
export function listTypes(client: ApsClient, query?: TypeQuery): Promise<Page<TypeInfo>> {
  const rql = !query ? "" : "rql" in query ? query.rql : "implementing" in query ? `implementing(${rqlText(query.implementing)})` : `composing(${rqlText(query.composing)})`;
  return listPage(client, "/aps/2/types", rql);
}

/** One type by its id. */
export function getType(client: ApsClient, typeId: string): Promise<TypeInfo> {
  return sendJson(client, { method: "GET", path: `/aps/2/types/${segment(typeId)}` });
}

export function listPackages(client: ApsClient): Promise<Page<PackageInfo>> {
  return listPage(client, "/aps/2/packages");
}

export function getPackage(client: ApsClient, packageId: string): Promise<PackageInfo> {
  return sendJson(client, { method: "GET", path: `/aps/2/packages/${segment(packageId)}` });
}

/** A file of a package (`APP-META.xml`, a schema, a UI file): the reply, to read as text, bytes or a stream. */
export function getPackageFile(client: ApsClient, packageId: string, path: string): Promise<Response> {
  return send(client, { method: "GET", path: `/aps/2/packages/${segment(packageId)}/${path.split("/").map(segment).join("/")}` });
}

/** Imports an `.app.zip` archive (provider administrators); its types are usable at once. */
export function importPackage(client: ApsClient, archive: RawBody["data"]): Promise<PackageInfo> {
  return sendJson(client, { method: "POST", path: "/aps/2/packages", raw: { contentType: "application/zip", data: archive } });
}
