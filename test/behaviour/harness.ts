/**
 * The controller as its behaviour suites see it: started the way `aps-gen serve` starts it
 * (runtime/controller/serve.ts: the same app, task runner, event deliverer and intent
 * reconciler), but the suite's own calls are answered in process (`app.request`): no TLS, no
 * socket, no HTTP parsing between the test and the controller. What depends on the connection
 * itself (TLS, client certificates, time-outs, processes) is test/e2e's.
 *
 * It still listens on an ephemeral port: applications a suite installs call back to
 * `controller.url` over HTTPS with their client certificates, as they do in production.
 *
 * Its database is opened here (on PGlite a copy of the run's migrated template, on PostgreSQL
 * a scratch database) and lent to the controller, so `sql()` reads and writes the live database
 * without stopping anything, and `restart()` reopens it from disk.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql as rawSql } from "drizzle-orm";
import pino from "pino";
import type { IdentityOptions } from "../../runtime/controller/app.ts";
import type { DeliveryPolicy } from "../../runtime/controller/events/event-deliverer.ts";
import { startController, type RunningController } from "../../runtime/controller/serve.ts";
import { openDatabase, rowsOf, type Database } from "../../runtime/controller/store/open-database.ts";
import { controllerModel } from "../helpers/controller-model.ts";
import { pgliteTemplate } from "../helpers/pglite-template.ts";
import { scratchDatabase } from "../helpers/scratch-database.ts";
import { inProcessClient } from "./in-process-client.ts";

export { databases } from "../helpers/databases.ts";

/** A controller with its own data folder and database, called in process. */
export interface BehaviourController {
  /** The running controller: `url` and `caCert` are what applications call back to. */
  readonly controller: RunningController;
  /** A call as helpers/https-client.ts makes it, answered in process. */
  readonly call: ReturnType<typeof inProcessClient>;
  /** `controller.request` with the admin token unless `headers` names another (or `aps-token: ""` for none). */
  request(path: string, init?: RequestInit): Promise<Response>;
  readonly adminToken: string;
  readonly dataDir: string;
  /** Everything the controller logged (pino, JSON lines). */
  readonly logFile: string;
  /** The PostgreSQL database it runs on (absent on PGlite). */
  readonly databaseUrl?: string;
  /** Stops it and closes its database, keeping the data (for restart tests). */
  stop(): Promise<void>;
  /** Reopens the database and starts it again on the same data. */
  restart(): Promise<void>;
  /** Stops it and removes its data and database. */
  dispose(): Promise<void>;
  /** A second controller on the same database and keys (PostgreSQL only: PGlite is one process's). */
  second(): Promise<{ url: string; call: ReturnType<typeof inProcessClient>; close(): Promise<void> }>;
  /** Runs SQL on the controller's live database (to look at or change raw rows). */
  sql(query: string): Promise<Record<string, unknown>[]>;
}

/** What suites tune: as startController takes them. */
export interface BehaviourOptions {
  readonly endpointTimeoutMs?: number;
  readonly eventDelivery?: Partial<DeliveryPolicy>;
  readonly identity?: IdentityOptions;
  /** The console at /console/ (ControllerOptions.console): off, or served from a build of it. */
  readonly console?: false | { readonly folder: string };
}

/** Compiles `inputs` (declaration folders relative to the repository) and starts a controller on them. */
export async function startBehaviourController(
  kind: "pglite" | "postgres",
  inputs: readonly string[],
  options: BehaviourOptions = {},
): Promise<BehaviourController> {
  const model = await controllerModel(inputs);
  const dataDir = mkdtempSync(join(tmpdir(), "aps-behaviour-"));
  const logFile = join(dataDir, "controller.log");
  const scratch = kind === "postgres" ? await scratchDatabase("aps_behaviour") : undefined;
  const template = scratch ? undefined : await pgliteTemplate();
  const open = () => openDatabase({ dataDir, ...(scratch ? { url: scratch.url } : { pgliteTemplate: template }) });
  const logger = () => pino({ level: "info" }, pino.destination({ dest: logFile, sync: true, append: true }));
  const start = (database: Database | undefined) =>
    startController({
      ...model,
      ...options,
      host: "127.0.0.1",
      port: 0,
      dataDir,
      ...(database ? { database } : { databaseUrl: scratch!.url }),
      logger: logger(),
    });

  let database = await open();
  let controller = await start(database);
  /** Whether stop() left it stopped (dispose() then has nothing to close). */
  let stopped = false;
  const self: BehaviourController = {
    get controller() {
      return controller;
    },
    call: inProcessClient(() => controller),
    request(path, init = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has("aps-token")) headers.set("aps-token", self.adminToken);
      else if (headers.get("aps-token") === "") headers.delete("aps-token");
      return controller.request(new URL(path, controller.url), { ...init, headers });
    },
    adminToken: readFileSync(controller.provider.adminTokenPath, "utf8").trim(),
    dataDir,
    logFile,
    ...(scratch ? { databaseUrl: scratch.url } : {}),
    async stop() {
      stopped = true;
      await controller.close();
      await database.close();
    },
    async restart() {
      database = await open();
      controller = await start(database);
      stopped = false;
    },
    async dispose() {
      if (!stopped) {
        await controller.close();
        await database.close();
      }
      rmSync(dataDir, { recursive: true, force: true });
      await scratch?.drop();
    },
    async second() {
      if (!scratch) throw new Error("a second instance needs PostgreSQL");
      const other = await start(undefined);
      return { url: other.url, call: inProcessClient(() => other), close: () => other.close() };
    },
    async sql(query) {
      return rowsOf<Record<string, unknown>>(await database.db.execute(rawSql.raw(query)));
    },
  };
  return self;
}
