/**
 * What the controller knows (docs/aps/rest-api.md, "Collections"): types (`/aps/2/types`, RQL with
 * `implementing` and `composing`) and packages (`/aps/2/packages`: details, `APP-META.xml`, files,
 * and the provider's import of an `.app.zip`).
 */
import type { PackageInfo } from "../common/package-info.ts";
import type { TypeInfo } from "../common/type-info.ts";
import { segment, send, sendJson, type ApsClient, type RawBody } from "./client.ts";
import { listPage, type Page } from "./pages.ts";
import { rqlText } from "./rql.ts";

export type { PackageInfo, PackageService } from "../common/package-info.ts";
export type { TypeInfo } from "../common/type-info.ts";

/** Which types to list: those implementing a type (itself included), those a type is composed of, or an RQL text of your own. */
export type TypeQuery = { readonly implementing: string } | { readonly composing: string } | { readonly rql: string };

/** One page of types. */
export function listTypes(client: ApsClient, query?: TypeQuery): Promise<Page<TypeInfo>> {
  const rql = !query
    ? ""
    : "rql" in query
      ? query.rql
      : "implementing" in query
        ? `implementing(${rqlText(query.implementing)})`
        : `composing(${rqlText(query.composing)})`;
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
  return send(client, {
    method: "GET",
    path: `/aps/2/packages/${segment(packageId)}/${path.split("/").map(segment).join("/")}`,
  });
}

/** Imports an `.app.zip` archive (provider administrators); its types are usable at once. */
export function importPackage(client: ApsClient, archive: RawBody["data"]): Promise<PackageInfo> {
  return sendJson(client, {
    method: "POST",
    path: "/aps/2/packages",
    raw: { contentType: "application/zip", data: archive },
  });
}
