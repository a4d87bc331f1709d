/**
 * The application instances collection in the platform's form, `/aps/2/applications`
 * (docs/platform-forms.md §1.1, §1.2, table row 35). Clients send
 *
 *     {"aps": {"package": {"type": <APP-META id>, "version", "release"} | {"id": <package id>},
 *              "endpoint": <url>, "network": "proxy", "auth": {"oauth": {"key", "secret"}}},
 *      ...settings of the application root resource}
 *
 * (apsconnect-cli hub.py:233-269; the Connect extension hub/services.py:502-540 sends only the
 * package `type`) and read `app.aps.id`, the application root resource, from the reply. This
 * module turns that body into what InstanceLifecycle.install takes, and an instance into the reply;
 * the install itself is InstanceLifecycle's, shared with `/aps/2/instances`.
 */
import type { InstanceInfo } from "../../common/instance-info.ts";
import { ControllerError } from "../support/errors.ts";
import type { PackageCatalog, PackageRecord } from "../packages/catalog.ts";
import { comparePackageVersions, sameVersion } from "../packages/package-version.ts";

/** Members of `aps` a client may send; `endpointCa` is aps-gen's (an endpoint whose HTTPS certificate no public CA issued). */
const APS_MEMBERS = new Set(["package", "endpoint", "network", "auth", "endpointCa"]);

/** The install request InstanceLifecycle.install parses, built from the platform's body. */
export async function installRequestOf(body: unknown, catalog: PackageCatalog): Promise<Record<string, unknown>> {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new ControllerError(
      400,
      'Send {"aps": {"package": {"type": "<APP-META id>"}, "endpoint": "https://..."}, ...settings} to install an application instance.',
    );
  const { aps, ...settings } = body as Record<string, unknown>;
  if (typeof aps !== "object" || aps === null || Array.isArray(aps))
    throw new ControllerError(
      400,
      '"aps" must be an object: {"package": {...}, "endpoint": "https://...", "auth": {...}}.',
    );
  const a = aps as Record<string, unknown>;
  const unknown = Object.keys(a).filter((k) => !APS_MEMBERS.has(k));
  if (unknown.length)
    throw new ControllerError(
      400,
      `"aps" has members this controller does not know: ${unknown.join(", ")}; it takes ${[...APS_MEMBERS].join(", ")}.`,
    );
  // "proxy" (both clients) or "direct": how the platform reaches the endpoint. This controller calls it directly either way.
  if (a.network !== undefined && a.network !== "proxy" && a.network !== "direct")
    throw new ControllerError(400, '"aps.network" must be "proxy" or "direct".');
  if (typeof a.endpoint !== "string")
    throw new ControllerError(400, '"aps.endpoint" must be the URL of the application endpoint.');
  const pkg = await packageOf(a.package, catalog);
  return {
    package: pkg.id,
    endpoint: a.endpoint,
    ...(a.endpointCa !== undefined ? { endpointCa: a.endpointCa } : {}),
    ...(a.auth !== undefined ? { auth: a.auth } : {}),
    settings,
  };
}

/** The package `aps.package` names: by `id` (or `href`), or by APP-META `type` with an optional `version` and `release`, the newest that fits. */
export async function packageOf(ref: unknown, catalog: PackageCatalog): Promise<PackageRecord> {
  if (typeof ref !== "object" || ref === null || Array.isArray(ref))
    throw new ControllerError(
      400,
      '"aps.package" must be {"type": "<APP-META id>", "version"?, "release"?} or {"id": "<package id>"}.',
    );
  const p = ref as Record<string, unknown>;
  await catalog.refresh();
  const byHref = typeof p.href === "string" ? /\/aps\/2\/packages\/([^/?#]+)\/?$/.exec(p.href)?.[1] : undefined;
  const id = typeof p.id === "string" ? p.id : byHref;
  if (id !== undefined) {
    const found = catalog.get(id);
    if (!found)
      throw new ControllerError(
        400,
        `Package ${id} is not imported here; list the packages at /aps/2/packages or import one with POST /aps/2/packages.`,
      );
    return found;
  }
  if (typeof p.type !== "string")
    throw new ControllerError(400, '"aps.package" names no package: give "type" (the APP-META.xml <id>) or "id".');
  const sameApp = catalog.list().filter((r) => r.appId === p.type);
  if (!sameApp.length)
    throw new ControllerError(
      400,
      `No package with APP-META id ${p.type} is imported here; import it first (POST /aps/2/packages).`,
    );
  const fits = sameApp.filter(
    (r) =>
      (p.version === undefined || sameVersion(r.version, p.version)) &&
      (p.release === undefined || sameVersion(r.release, p.release)),
  );
  if (!fits.length)
    throw new ControllerError(
      400,
      `No package ${p.type} has version ${String(p.version ?? "any")} release ${String(p.release ?? "any")}; imported: ${sameApp.map((r) => `${r.version}-${r.release}`).join(", ")}.`,
    );
  return fits.sort((x, y) => comparePackageVersions(y, x))[0]!;
}

/**
 * An instance as `/aps/2/applications` shows it: `aps.id` is the instance, `app` its application
 * root resource (what apsconnect-cli reads as `reply.app.aps.id`, hub.py:269, then reads with
 * `GET aps/2/resources/{id}`), beside the members `/aps/2/instances` shows.
 */
export function platformInstanceView(instance: InstanceInfo, catalog: PackageCatalog): Record<string, unknown> {
  const { id, package: packageId, rootResource, rootService, href: _href, ...rest } = instance;
  const pkg = catalog.get(packageId);
  const rootType = pkg?.typeIds.find((t) => catalog.registry.get(t)?.service === rootService);
  return {
    aps: { id, href: `/aps/2/applications/${id}` },
    package: {
      id: packageId,
      href: `/aps/2/packages/${packageId}`,
      ...(pkg ? { type: pkg.appId, version: pkg.version, release: pkg.release } : {}),
    },
    ...(rootResource
      ? {
          app: {
            aps: {
              id: rootResource,
              ...(rootType ? { type: rootType } : {}),
              href: `/aps/2/resources/${rootResource}`,
            },
          },
        }
      : {}),
    rootService,
    ...rest,
  };
}
