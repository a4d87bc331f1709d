import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import postgres from "postgres";
import type { DeliveryPolicy } from "../../runtime/controller/events/event-deliverer.ts";
import type { IdentityOptions } from "../../runtime/controller/app.ts";
import { startController, type RunningController } from "../../runtime/controller/serve.ts";
import type { ServerTimeouts } from "../../runtime/controller/support/https-limits.ts";
import { httpsClient } from "../helpers/https-client.ts";
import { controllerModel } from "../helpers/controller-model.ts";
import { pgliteTemplate } from "../helpers/pglite-template.ts";
import { scratchDatabase } from "../helpers/scratch-database.ts";

export { databases } from "../helpers/databases.ts";

/**
 * A controller started like `aps-gen serve` does, on an ephemeral port, with its own data folder
 * and database, called over real HTTPS: for suites about the connection itself (TLS, client
 * certificates, server time-outs, a second instance). Behaviour suites call it in process
 * (test/behaviour/harness.ts).
 */
export interface ControllerUnderTest {
  controller: RunningController;
  call: ReturnType<typeof httpsClient>;
  adminToken: string;
  dataDir: string;
  logFile: string;
  /** The PostgreSQL database it runs on (absent on PGlite). */
  databaseUrl?: string;
  /** Stops it and removes its data and database. */
  dispose(): Promise<void>;
  /** A second controller on the same database and keys (PostgreSQL only: PGlite has one process). */
  second(): Promise<{ url: string; call: ReturnType<typeof httpsClient>; close(): Promise<void> }>;
  /** Runs SQL against the controller's database (to look at raw rows). */
  sql(query: string): Promise<Record<string, unknown>[]>;
}

export async function startControllerUnderTest(
  kind: "pglite" | "postgres",
  inputs: readonly string[],
  options: {
    endpointTimeoutMs?: number;
    eventDelivery?: Partial<DeliveryPolicy>;
    identity?: IdentityOptions;
    serverTimeouts?: Partial<ServerTimeouts>;
  } = {},
): Promise<ControllerUnderTest> {
  const model = await controllerModel(inputs);
  const dataDir = mkdtempSync(join(tmpdir(), "aps-e2e-"));
  const logFile = join(dataDir, "controller.log");
  const database = kind === "postgres" ? await scratchDatabase("aps_e2e") : undefined;
  const databaseUrl = database?.url;
  const template = databaseUrl ? undefined : await pgliteTemplate();
  const start = () =>
    startController({
      ...model,
      ...options,
      host: "127.0.0.1",
      port: 0,
      dataDir,
      ...(databaseUrl ? { databaseUrl } : { pgliteTemplate: template }),
      logger: pino({ level: "info" }, pino.destination({ dest: logFile, sync: true, append: true })),
    });
  /** Starts it again on the same data and database. */
  const restart = async () => {
    self.controller = await start();
    self.call = httpsClient(self.controller.url, self.controller.caCert);
  };
  const self: ControllerUnderTest = {
    controller: await start(),
    call: undefined as never,
    adminToken: "",
    dataDir,
    logFile,
    ...(databaseUrl ? { databaseUrl } : {}),
    async dispose() {
      await self.controller.close();
      rmSync(dataDir, { recursive: true, force: true });
      await database?.drop();
    },
    async second() {
      if (!databaseUrl) throw new Error("a second instance needs PostgreSQL");
      const other = await start();
      return { url: other.url, call: httpsClient(other.url, other.caCert), close: () => other.close() };
    },
    async sql(query: string) {
      if (databaseUrl) {
        const client = postgres(databaseUrl, { onnotice: () => {} });
        try {
          return [...(await client.unsafe(query))] as Record<string, unknown>[];
        } finally {
          await client.end();
        }
      }
      // PGlite allows one process at a time: read through a second instance only while stopped.
      await self.controller.close();
      const { PGlite } = await import("@electric-sql/pglite");
      const db = new PGlite(join(dataDir, "pgdata"));
      try {
        return (await db.query<Record<string, unknown>>(query)).rows;
      } finally {
        await db.close();
        await restart();
      }
    },
  };
  self.call = httpsClient(self.controller.url, self.controller.caCert);
  self.adminToken = readFileSync(self.controller.provider.adminTokenPath, "utf8").trim();
  return self;
}
