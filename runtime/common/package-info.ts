/**
 * Packages and their services as `/aps/2/packages` and `/aps/2/application` answer them (docs/aps/rest-api.md,
 * "Collections"): the controller builds these values and the client's catalog functions return them.
 */

/** A service of a package: the type whose resources it provides, and where that type's document is. */
export interface PackageService {
  readonly type: string;
  /** Where the type's document is (`GET` it for its properties, counters among them). */
  readonly schema: string;
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
  /** The ids of the types it declares. */
  readonly types: readonly string[];
  /** Its services by id. */
  readonly services: Readonly<Record<string, PackageService>>;
  readonly href: string;
}

/** One service of the calling instance's package, as `/aps/2/application` lists it (keyed by service id). */
export interface ApplicationService extends PackageService {
  /** Where the application manages the service's resources. */
  readonly href: string;
}
