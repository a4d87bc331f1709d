/**
 * `/aps/2/packages` (docs/aps/rest-api.md, "Collections"; docs/aps/packages.md): list, details,
 * `APP-META.xml` and files of each package, and `POST` (provider administrators only) to import an
 * `.app.zip` while running: checked and compiled by the generator, stored in the database, usable
 * at once here and, on their next miss, on every instance sharing the database.
 */
import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import type { Logger } from "pino";
import { ArchiveTooLarge, checkDeclaredSizes } from "../../common/bounded-unzip.ts";
import type { PackageInfo, PackageService } from "../../common/package-info.ts";
import { requireProviderAdmin } from "../auth/caller.ts";
import type { ControllerEnv } from "../context.ts";
import { ControllerError } from "../support/errors.ts";
import { sendJson, sendList } from "../support/http-json.ts";
import { decodePathText } from "../support/path-text.ts";
import { readBodyBytes } from "../support/request-body.ts";
import { savePackage } from "../packages/archive-store.ts";
import {
  type CompiledPackage,
  PackageRejected,
  type PackageCatalog,
  type PackageCompiler,
  type PackageRecord,
} from "../packages/catalog.ts";
import type { TypeRegistry } from "../registry.ts";
import type { Db } from "../store/open-database.ts";
import { typeHref } from "../type-document.ts";

/** Largest package archive accepted (bytes). */
const MAX_PACKAGE_BYTES = 32 * 1024 * 1024;

export function packageRoutes(
  catalog: PackageCatalog,
  db: Db,
  compiler: PackageCompiler | undefined,
  logger: Logger,
): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  app.get("/", async (c) => {
    await catalog.refresh();
    const list = catalog.list().map((p) => packageView(p, catalog.registry));
    return sendList(c, list);
  });
  app.post("/", async (c) => {
    requireProviderAdmin(c.get("caller"), "import packages");
    if (!compiler)
      throw new ControllerError(
        405,
        "This controller was started without a package compiler, so it cannot import packages.",
      );
    const type = c.req.header("content-type") ?? "";
    if (!/^application\/(zip|octet-stream|x-zip-compressed)\b/i.test(type))
      throw new ControllerError(
        415,
        "Send the package as the body, Content-Type: application/zip (an .app.zip archive).",
      );
    const archive = new Uint8Array(await readBodyBytes(c, MAX_PACKAGE_BYTES));
    if (archive.length === 0) throw new ControllerError(400, "The body is empty; send the .app.zip archive.");
    refuseUnusableArchive(archive);
    const label = (c.req.header("x-package-name") ?? "upload").replace(/[^\w.-]/g, "_");
    // A large package takes seconds to compile (in the compiler's worker thread): the log tells
    // that one started, each step with its duration and counts, and how it ended.
    const started = performance.now();
    logger.info({ label, bytes: archive.length }, "package import started");
    const ended = (status: number, more: Record<string, unknown> = {}) =>
      logger.info({ label, status, ms: Math.round(performance.now() - started), ...more }, "package import ended");
    let compiled: CompiledPackage;
    try {
      compiled = await compiler(archive, label, (step) =>
        logger.info({ label, phase: step.phase, ms: step.ms, ...step.counts }, "package import phase"),
      );
    } catch (error) {
      if (error instanceof PackageRejected) {
        ended(400, { errors: error.diagnostics.length });
        throw new ControllerError(
          400,
          `The package was not imported: ${error.diagnostics.length} error(s) in its declarations; first: ${error.diagnostics[0] ?? ""}`,
          error.diagnostics.map((d) => ({ path: "", code: "type" as const, message: d })),
        );
      }
      if (error instanceof ArchiveTooLarge) {
        ended(413);
        throw new ControllerError(413, `The archive was not imported: ${error.message}.`);
      }
      ended(400, { error: (error as Error).message });
      throw new ControllerError(400, `The body is not a usable .app.zip: ${(error as Error).message}`);
    }
    await catalog.refresh();
    // Versions of one application may share types (catalog.conflicts), but one version is imported once.
    const again = catalog
      .list()
      .find((p) => p.appId === compiled.appId && p.version === compiled.version && p.release === compiled.release);
    if (again) {
      ended(409, { existing: again.id });
      throw new ControllerError(
        409,
        `${compiled.appId} ${compiled.version}-${compiled.release} is already imported as package ${again.id}; a new version needs a new <version> or <release> in APP-META.xml.`,
      );
    }
    const taken = catalog.conflicts(compiled);
    if (taken.length) {
      ended(409, { conflicts: taken.length });
      throw new ControllerError(
        409,
        `The package declares types this controller already serves: ${taken.join(", ")}. Import a new version (a new type id version) instead.`,
      );
    }
    const id = randomUUID();
    await savePackage(
      db,
      {
        id,
        appId: compiled.appId,
        name: compiled.name,
        version: compiled.version,
        release: compiled.release,
        imported: new Date().toISOString(),
      },
      archive,
    );
    const record = catalog.add(id, compiled);
    ended(201, { id, types: record.typeIds.length });
    return sendJson(c, packageView(record, catalog.registry), 201);
  });
  app.get("/:id", async (c) => sendJson(c, packageView(await find(catalog, c.req.param("id")), catalog.registry)));
  app.get("/:id/*", async (c) => {
    const pkg = await find(catalog, c.req.param("id"));
    const path = decodePathText(
      new URL(c.req.url).pathname.replace(/^.*?\/aps\/2\/packages\/[^/]+\//, ""),
      "file path",
    );
    const bytes = pkg.files.read(path);
    if (!bytes) throw new ControllerError(404, `Package ${pkg.name} has no file ${path}.`);
    // Package files are the vendor's, not the controller's: never let a browser run them in this origin.
    return new Response(bytes, {
      headers: {
        "content-type": contentTypeOf(path),
        "x-content-type-options": "nosniff",
        "content-security-policy": "sandbox",
      },
    });
  });
  return app;
}

/**
 * 413 for an archive whose directory declares more than the package bounds (a zip bomb), 400 for
 * one that is not a zip; nothing is kept. Only the directory is read here, on the serving thread:
 * the compiler inflates the entries, counting what really comes out (an archive that lies about
 * its sizes is refused there, with ArchiveTooLarge).
 */
function refuseUnusableArchive(archive: Uint8Array): void {
  try {
    checkDeclaredSizes(archive);
  } catch (error) {
    if (error instanceof ArchiveTooLarge)
      throw new ControllerError(413, `The archive was not imported: ${error.message}.`);
    throw new ControllerError(400, `The body is not a usable .app.zip: ${(error as Error).message}.`);
  }
}

async function find(catalog: PackageCatalog, id: string): Promise<PackageRecord> {
  let pkg = catalog.get(id);
  if (!pkg) {
    await catalog.refresh();
    pkg = catalog.get(id);
  }
  if (!pkg)
    throw new ControllerError(
      404,
      `Package ${id} is not known to this controller; list the known ones at /aps/2/packages.`,
    );
  return pkg;
}

/**
 * A package as clients read it: `name` is APP-META.xml's `<name>` (the slug for a plain folder of
 * declarations), `services` an object keyed by service id, as apsconnect-cli reads it
 * (`'itemProfile' in services.keys()`, hub.py:320-329), and `version`/`release` as APP-META writes
 * them (the Connect extension reads them with float() and int(), hub/services.py:190-198).
 */
function packageView(p: PackageRecord, registry: TypeRegistry): PackageInfo {
  const services: Record<string, PackageService> = {};
  for (const id of p.typeIds) {
    const t = registry.get(id);
    if (t?.service) services[t.service] = { type: t.id, schema: typeHref(t.id) };
  }
  return {
    id: p.id,
    appId: p.appId,
    name: p.metaName ?? p.name,
    slug: p.name,
    version: p.version,
    release: p.release,
    origin: p.origin,
    types: p.typeIds,
    services,
    href: `/aps/2/packages/${p.id}`,
  };
}

function contentTypeOf(path: string): string {
  if (/\.xml$/i.test(path)) return "application/xml";
  if (/\.(json|schema|gen)$/i.test(path)) return "application/json";
  if (/\.html?$/i.test(path)) return "text/html; charset=utf-8";
  if (/\.js$/i.test(path)) return "text/javascript";
  if (/\.png$/i.test(path)) return "image/png";
  if (/\.svg$/i.test(path)) return "image/svg+xml";
  return "application/octet-stream";
}
