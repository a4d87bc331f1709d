/**
 * Starts the controller: data directory, keys, TLS, database and migrations, the provider
 * account, then HTTPS. With a deployment key the keys and TLS come after the database, from it. `close()` stops accepting, finishes running requests and closes the
 * database (used on SIGTERM/SIGINT). Each step is a module of start/.
 */
import { resolve } from "node:path";
import { defaultControllerLogger } from "./observability/controller-logger.ts";
import { loadKeys } from "./support/data-directory.ts";
import { ensureControllerTls } from "../common/certificate-authority.ts";
import { assembleController, type AssembledController } from "./start/controller-parts.ts";
import { openControllerDatabase } from "./start/controller-database.ts";
import { deploymentKeysOfNode, refuseDeploymentKeyOnEmbeddedDatabase } from "./start/deployment-keys.ts";
import type { ControllerOptions, RunningController } from "./start/controller-options.ts";
import { holdDataFolder } from "./start/data-folder.ts";
import { HeldResources } from "./start/held-resources.ts";
import { listenTls, type TlsListener } from "./start/listen-tls.ts";
import { refuseReadReplicasOnEmbeddedDatabase } from "./start/read-replicas.ts";

/** `aps-gen migrate`: applies the migrations without serving (`aps-gen/controller` exports it from here). */
export { migrateDatabase, type MigrationReport } from "./migrate.ts";
/** What startController takes and gives (`aps-gen/controller` exports them from here). */
export type { ControllerOptions, RunningController } from "./start/controller-options.ts";
/** The deployment key of `ControllerOptions.deploymentKey` (`DeploymentKey.fromText(text, where)`). */
export { DeploymentKey } from "./deployment/deployment-key.ts";

export async function startController(options: ControllerOptions): Promise<RunningController> {
  const dataDir = resolve(options.dataDir);
  const host = options.host ?? "127.0.0.1";
  const logger = options.logger ?? defaultControllerLogger();
  // Given back newest first when a step fails (so the process can end with one line), or by close().
  const held = new HeldResources();
  try {
    const sharedDatabase = options.database ? options.database.kind === "postgres" : Boolean(options.databaseUrl);
    holdDataFolder(dataDir, sharedDatabase, held);
    if (options.deploymentKey && !sharedDatabase) throw refuseDeploymentKeyOnEmbeddedDatabase();
    if (options.readDatabaseUrls?.length && !sharedDatabase) throw refuseReadReplicasOnEmbeddedDatabase();
    const hosts = [...new Set([host, "localhost", "127.0.0.1"])];
    // One controller: the data folder's keys, ready before the database opens. With a deployment key: the database's.
    const own = options.deploymentKey
      ? undefined
      : { keys: loadKeys(dataDir), tls: await ensureControllerTls(dataDir, hosts) };
    const database = await openControllerDatabase(options, dataDir, held);
    const { keys, tls } =
      own ?? (await deploymentKeysOfNode(database.db, options.deploymentKey!, dataDir, hosts, logger));
    let url = "";
    const controller = await assembleController({
      options,
      dataDir,
      logger,
      keys,
      tls,
      db: database.db,
      url: () => url,
      held,
    });
    const listener = await listenTls(
      controller.app.fetch,
      host,
      options.port ?? 8443,
      tls,
      options.serverTimeouts,
    ).catch(async (error: unknown) => {
      await controller.stopApp();
      throw error;
    });
    url = listener.url;
    logger.info({ url, database: database.kind }, "controller listening");
    controller.loops.start();
    let closing: Promise<void> | undefined;
    return {
      url,
      port: listener.port,
      caCertPath: tls.caCertPath,
      caCert: tls.ca.cert,
      provider: controller.provider,
      database: database.kind,
      routes: controller.app.routes.filter((r) => r.method !== "ALL").map(({ method, path }) => ({ method, path })),
      metrics: controller.metrics,
      request: async (input, init) => controller.app.request(input, init),
      close: () => (closing ??= closeController(controller, listener, held)),
    };
  } catch (error) {
    await held.release();
    throw error;
  }
}

/** Background work and the app's own first, then the server (it waits for the requests in hand), then what the start holds. */
async function closeController(
  controller: AssembledController,
  listener: TlsListener,
  held: HeldResources,
): Promise<void> {
  await Promise.all([controller.loops.stop(), controller.stopApp()]);
  await listener.close();
  await held.release();
}
