/**
 * Shapes shared by every generated module: the `aps` meta-section, links, and the 64-bit
 * integer type. Generated code imports these as `aps-gen/runtime/common/types`; the controller
 * builds its resource views and the calls it makes to endpoints with them, so the compiler holds
 * both sides to one contract.
 */

/**
 * An APS `integer` (the full signed 64-bit range: docs/aps/resources.md, "Limits"). Values within
 * ±(2^53 − 1) are plain numbers; values beyond that arrive as `bigint`, because a JavaScript number
 * would silently round them.
 */
export type Int64 = number | bigint;

/** Reference to a package, as it appears in `aps.package`. */
export interface ApsPackageRef {
  readonly id: string;
  readonly href: string;
}

/** The `aps` meta-section of a resource as the controller returns it (docs/aps/resources.md, "The aps meta section"). */
export interface ApsMeta {
  readonly id: string;
  readonly type: string;
  /** `aps:ready`, `aps:provisioning`, `aps:disabled`, ... (or an application's own namespace). */
  readonly status?: string;
  readonly revision?: number;
  /** ISO 8601 UTC time of the last change. */
  readonly modified?: string;
  readonly subscription?: string;
  readonly schema?: string;
  readonly package?: ApsPackageRef;
}

/** The `aps` section a client may send when it provisions a resource. */
export interface ApsCreateMeta {
  /** Type id of the new resource; generated clients fill it in. */
  type?: string;
  /** Set only by applications registering a resource they created themselves. */
  id?: string;
  status?: string;
}

/** A resource as the controller answers it: the `aps` section, then the properties and links the reader may see. */
export type ApsResource = { readonly aps: ApsMeta } & { readonly [member: string]: unknown };

/**
 * The `aps` section of the resource in a call to an endpoint (provisioning, configure and their
 * asynchronous repeats): the resource as the controller holds it at that moment. `id` and `type`
 * are always there; the rest as in {@link ApsMeta}: `status` (`aps:provisioning` while it is
 * provisioned), `revision`, `modified`, `subscription` when the resource belongs to one, `schema`
 * and `package`. Connectors such as FallBall and the Connect extension refuse a tenant without
 * `aps.subscription` and `aps.status`.
 */
export interface ApsProvisionMeta extends ApsMeta {
  readonly id: string;
  readonly type: string;
}

/**
 * `aps.x509` of the install call to an endpoint (and of a credentials update): the instance's
 * certificate and private key as one PEM text, and the certificate the controller presents followed
 * by its CA (docs/aps/security.md, "Application credentials"). The connector keeps it and hides it
 * from handlers.
 */
export interface ApsX509 {
  readonly self: string;
  readonly controller: string;
}

/** How a relation links: `strong` (required singular), `weak` (optional singular) or `collection`. */
export type LinkKind = "strong" | "weak" | "collection";

/** A singular link as shown in a resource: strong (required relation) or weak. */
export interface ApsLink {
  readonly aps: { readonly link: Exclude<LinkKind, "collection">; readonly id: string; readonly href: string };
}

/** A collection link as shown in a resource: `href` lists the linked resources. */
export interface ApsCollectionLink {
  readonly aps: { readonly link: "collection"; readonly href: string };
}

/** How a client names the resource to link to, or a resource-typed value. */
export interface ApsLinkRef {
  aps: { id: string };
}
