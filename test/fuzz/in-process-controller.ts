/**
 * The controller app built the way runtime/controller/serve.ts builds it, but without TLS or a
 * socket: requests go through `app.request(...)`. For suites that only need HTTP semantics
 * (status, headers, body), this is seconds faster than the HTTPS harness of test/e2e.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { buildRegistry } from "../../generator/emit/controller/registry-data.ts";
import { loadValidators } from "../../cli/validate/load-validators.ts";
import { compileArchive, startPackages } from "../../cli/serve/package-import/package-compiler.ts";
import { compile } from "../../generator/pipeline.ts";
import { createControllerApp, type ControllerApp } from "../../runtime/controller/app.ts";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { ensureProvider } from "../../runtime/controller/bootstrap.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { PropertySealer } from "../../runtime/controller/support/encryption.ts";
import { PackageCatalog } from "../../runtime/controller/packages/catalog.ts";
import { ensureNotificationManager } from "../../runtime/controller/platform/notification-manager.ts";
import { openDatabase, type Database } from "../../runtime/controller/store/open-database.ts";
import { repoRoot } from "../helpers/paths.ts";
import { pgliteTemplate } from "../helpers/pglite-template.ts";
import { scratchDatabase } from "../helpers/scratch-database.ts";

/** A controller app on its own data folder and database, called in process. */
export interface InProcessController {
  readonly app: ControllerApp["app"];
  readonly database: Database;
  readonly catalog: PackageCatalog;
  readonly tokens: TokenService;
  readonly adminToken: string;
  /** `app.request` with the admin token unless `headers` names another (or `aps-token: ""`). */
  request(path: string, init?: RequestInit): Promise<Response>;
  dispose(): Promise<void>;
}

/** Compiles `inputs` (paths relative to the repository) and starts the app on PGlite or a scratch PostgreSQL database. */
export async function startInProcessController(
  kind: "pglite" | "postgres",
  inputs: readonly string[],
): Promise<InProcessController> {
  const { model, diagnostics } = compile([...inputs], { cwd: repoRoot });
  const errors = diagnostics.filter((d) => d.severity === "error");
  if (errors.length) throw new Error(`declarations have errors: ${errors.map((e) => e.message).join("; ")}`);
  const dataDir = mkdtempSync(join(tmpdir(), "aps-inproc-"));
  const scratch = kind === "postgres" ? await scratchDatabase("aps_inproc") : undefined;
  const database = await openDatabase({
    dataDir,
    ...(scratch ? { url: scratch.url } : { pgliteTemplate: await pgliteTemplate() }),
  });
  const keys = loadKeys(dataDir, {});
  const tokens = new TokenService(keys.token);
  const provider = await ensureProvider(database.db, tokens, dataDir);
  const catalog = new PackageCatalog(
    database.db,
    buildRegistry(model),
    await loadValidators(model),
    startPackages(model, repoRoot),
    compileArchive,
  );
  await catalog.refresh();
  await ensureNotificationManager(database.db, catalog.registry, provider.accountId);
  const { app, stop } = createControllerApp({
    catalog,
    compiler: compileArchive,
    db: database.db,
    tokens,
    sealer: new PropertySealer(keys.encryption),
    logger: pino({ level: "silent" }),
  });
  const adminToken = await tokens.mint({ accountId: provider.accountId, userId: provider.adminUserId });
  return {
    app,
    database,
    catalog,
    tokens,
    adminToken,
    request(path, init = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has("aps-token")) headers.set("aps-token", adminToken);
      else if (headers.get("aps-token") === "") headers.delete("aps-token");
      return Promise.resolve(app.request(`https://controller.test${path}`, { ...init, headers }));
    },
    async dispose() {
      // The account revocation feed reads the database until stopped.
      await stop();
      await database.close();
      await scratch?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** True when `body` is the controller's one error shape for `status` (runtime/controller/support/errors.ts). */
export function isErrorShape(status: number, body: unknown): boolean {
  if (body === null || typeof body !== "object") return false;
  const b = body as Record<string, unknown>;
  return (
    b.code === status &&
    typeof b.type === "string" &&
    b.type === b.error &&
    typeof b.message === "string" &&
    b.message.length > 0
  );
}
