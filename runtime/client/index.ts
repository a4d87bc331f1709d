/**
 * `aps-gen/client`: everything a script needs to call a controller, from one module. It imports
 * nothing of the server (no database, no HTTP framework, no logger): test/client/light-client.test.ts
 * walks its import graph to keep it so.
 */
export * from "./client.ts";
export * from "./aps-error.ts";
export * from "./rql.ts";
export * from "./pages.ts";
export * from "./content-range.ts";
export * from "./links.ts";
export * from "./subscriptions.ts";
export * from "./administration.ts";
export * from "./application.ts";
export * from "./catalog.ts";
export * from "./ui.ts";
export * from "./node-tls.ts";
export * from "./json.ts";
export type {
  ApsCollectionLink,
  ApsCreateMeta,
  ApsLink,
  ApsLinkRef,
  ApsMeta,
  ApsPackageRef,
  ApsResource,
  Int64,
  LinkKind,
} from "../common/types.ts";
