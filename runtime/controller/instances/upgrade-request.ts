/**
 * The body of an instance upgrade, in aps-gen's form (`POST /aps/2/instances/{id}/upgrade`)
 *
 *     {"package": "<package id>" | {"id"} | {"version", "release"?}, "settings"?: {...}}
 *
 * and in the form of the platform's applications collection (`POST /aps/2/applications/{id}/upgrade`),
 * which mirrors its install body (platform-install.ts): `{"aps": {"package": {...}}, ...settings}`.
 * A package named by version alone is one of the instance's own application; `settings` are new
 * values of the application root (those a new version introduced, kb.cloudblue.com/en/120574).
 */
import type { PackageCatalog, PackageRecord } from "../packages/catalog.ts";
import { ControllerError } from "../support/errors.ts";
import { packageOf } from "./platform-install.ts";

export interface UpgradeRequest {
  readonly to: PackageRecord;
  readonly settings: Record<string, unknown>;
}

const HINT =
  'Send {"package": "<package id>"} or {"package": {"version": "...", "release": "..."}} to upgrade an instance.';

/** aps-gen's form. `appId` is the instance's application, for a package named by version. */
export async function parseUpgrade(body: unknown, appId: string, catalog: PackageCatalog): Promise<UpgradeRequest> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new ControllerError(400, HINT);
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).filter((k) => k !== "package" && k !== "settings");
  if (unknown.length)
    throw new ControllerError(
      400,
      `The upgrade body has members this controller does not know: ${unknown.join(", ")}. ${HINT}`,
    );
  if (b.settings !== undefined && (typeof b.settings !== "object" || b.settings === null || Array.isArray(b.settings)))
    throw new ControllerError(400, '"settings" must be an object of the application root\'s properties.');
  return {
    to: await targetOf(b.package, appId, catalog),
    settings: (b.settings as Record<string, unknown> | undefined) ?? {},
  };
}

/** The platform's form: the package under `aps`, the root's new settings beside it. */
export async function parsePlatformUpgrade(
  body: unknown,
  appId: string,
  catalog: PackageCatalog,
): Promise<UpgradeRequest> {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new ControllerError(
      400,
      'Send {"aps": {"package": {"version": "...", "release": "..."}}, ...new settings} to upgrade an application instance.',
    );
  const { aps, ...settings } = body as Record<string, unknown>;
  if (typeof aps !== "object" || aps === null || Array.isArray(aps))
    throw new ControllerError(400, '"aps" must be {"package": {"version", "release"} | {"id"}}.');
  const unknown = Object.keys(aps).filter((k) => k !== "package");
  if (unknown.length)
    throw new ControllerError(400, `"aps" of an upgrade takes only "package"; it has ${unknown.join(", ")}.`);
  return { to: await targetOf((aps as Record<string, unknown>).package, appId, catalog), settings };
}

async function targetOf(ref: unknown, appId: string, catalog: PackageCatalog): Promise<PackageRecord> {
  if (typeof ref === "string") {
    await catalog.refresh();
    const pkg = catalog.get(ref);
    if (!pkg)
      throw new ControllerError(
        400,
        `Package ${ref} is not imported here; list the packages at /aps/2/packages or import one with POST /aps/2/packages.`,
      );
    return pkg;
  }
  if (typeof ref !== "object" || ref === null || Array.isArray(ref)) throw new ControllerError(400, HINT);
  const r = ref as Record<string, unknown>;
  // By version alone: the instance's own application (APP-META.xml <id>).
  return packageOf(
    r.type === undefined && r.id === undefined && r.href === undefined ? { ...r, type: appId } : r,
    catalog,
  );
}
