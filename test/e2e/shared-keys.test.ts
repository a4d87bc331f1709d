/**
 * Issue 30, one source of truth for a deployment's keys: controllers on one PostgreSQL with
 * different data folders and one deployment key use the same token key, encryption key, CA and
 * client certificate, which the database holds sealed under that key. A single-node deployment
 * grows without re-issuing anything (its keys are the ones stored); a token, an encrypted
 * property and an instance certificate made through one node are good on the other; each node
 * has its own server certificate from the shared CA; a wrong key stops a start in one line and
 * changes nothing; controllers starting at once on an empty database end with one set.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql as sqlText } from "drizzle-orm";
import pino from "pino";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isIssuedBy } from "../../runtime/common/certificate-authority.ts";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { storeSealedSecretsUnlessPresent } from "../../runtime/controller/deployment/secret-store.ts";
import { establishDeploymentSecrets, sameSecrets } from "../../runtime/controller/deployment/shared-keys.ts";
import {
  DeploymentKey,
  migrateDatabase,
  startController,
  type ControllerOptions,
  type RunningController,
} from "../../runtime/controller/serve.ts";
import { openDatabase } from "../../runtime/controller/store/open-database.ts";
import { ControllerStartError } from "../../runtime/controller/support/start-errors.ts";
import { runCli } from "../helpers/cli-run.ts";
import { controllerModel } from "../helpers/controller-model.ts";
import { httpsClient } from "../helpers/https-client.ts";
import { scratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { credentialsOf, installCloudmailAt, startFakeApplication, type FakeApplication } from "./fake-application.ts";

type Model = Awaited<ReturnType<typeof controllerModel>>;
const CLOUDMAIL = "http://cloudmail.example.com/types/cloudmail/1.0";

/** A migrated scratch database and a folder for data folders, for one describe block. */
async function migratedDatabase(prefix: string, root: string): Promise<ScratchDatabase> {
  const database = await scratchDatabase(prefix);
  await migrateDatabase({ databaseUrl: database.url, dataDir: root });
  return database;
}

async function sealedRows(url: string): Promise<Map<string, Buffer>> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return new Map(
      (await sql<{ name: string; sealed: Buffer }[]>`select name, sealed from deployment_secrets order by name`).map(
        (r) => [r.name, Buffer.from(r.sealed)],
      ),
    );
  } finally {
    await sql.end();
  }
}

/** The rejection of a start that should fail. */
async function refusal(start: Promise<RunningController>): Promise<ControllerStartError> {
  const outcome = await start.then(
    async (running) => {
      await running.close();
      return undefined;
    },
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(ControllerStartError);
  return outcome as ControllerStartError;
}

describe.skipIf(!process.env.DATABASE_URL)(
  "controllers sharing a deployment's keys through PostgreSQL (skipped without DATABASE_URL)",
  () => {
    const root = mkdtempSync(join(tmpdir(), "aps-shared-keys-"));
    const deploymentKey = DeploymentKey.fromText(randomBytes(32).toString("base64"), "test");
    const apiSecret = `api-secret-${randomBytes(6).toString("hex")}`;
    let database: ScratchDatabase;
    let model: Model;
    let app: FakeApplication;
    const running: RunningController[] = [];
    const start = async (dataDir: string, options: Partial<ControllerOptions> = {}) => {
      const controller = await startController({
        ...model,
        host: "127.0.0.1",
        port: 0,
        dataDir,
        databaseUrl: database.url,
        migrate: false,
        logger: pino({ level: "silent" }),
        ...options,
      });
      running.push(controller);
      return controller;
    };
    const stop = async (controller: RunningController) => {
      running.splice(running.indexOf(controller), 1);
      await controller.close();
    };
    const aDir = join(root, "a");
    const bDir = join(root, "b");
    let a: RunningController;
    let b: RunningController;
    /** Minted by `aps-gen token` from A's data folder before A's keys were the deployment's. */
    let tokenOfA = "";
    let rootResource = "";

    beforeAll(async () => {
      database = await migratedDatabase("aps_shared_keys", root);
      model = await controllerModel(["types/examples/cloudmail"]);
      app = await startFakeApplication(root);
    });
    afterAll(async () => {
      for (const controller of running.splice(0)) await controller.close();
      await app?.close();
      await database?.drop();
      rmSync(root, { recursive: true, force: true });
    });

    it("a controller that ran alone stores its own keys, sealed, when first started with the deployment key, and re-issues nothing", async () => {
      // One controller, keys in its data folder, as before: an application installed (its
      // certificate issued by this CA, its API secret sealed with this encryption key), a token minted.
      const alone = await start(aDir);
      const adminToken = readFileSync(alone.provider.adminTokenPath, "utf8").trim();
      await installCloudmailAt(
        {
          adminToken,
          call: (m, p, o) =>
            httpsClient(alone.url, alone.caCert)(m, p, {
              ...o,
              body: o.body === undefined ? undefined : withSecret(o.body),
            }),
        },
        app,
      );
      const minted = await runCli([
        "token",
        "--data",
        aDir,
        "--account",
        alone.provider.accountId,
        "--user",
        alone.provider.adminUserId,
      ]);
      expect(minted.code, minted.err.join("\n")).toBe(0);
      tokenOfA = minted.out[0]!;
      const caBefore = alone.caCert;
      const filesBefore = readdirSync(aDir, { recursive: true }).map(String).sort();
      await stop(alone);

      a = await start(aDir, { deploymentKey });
      expect(a.caCert).toBe(caBefore);
      expect(readdirSync(aDir, { recursive: true }).map(String).sort()).toEqual(filesBefore);
      expect([...(await sealedRows(database.url)).keys()]).toEqual([
        "ca-certificate",
        "ca-private-key",
        "controller-client-certificate",
        "controller-client-private-key",
        "encryption-key",
        "token-key",
      ]);
      const call = httpsClient(a.url, a.caCert);
      expect((await call("GET", "/aps/2/resources", { token: tokenOfA })).status).toBe(200);
      rootResource = (
        (await call("GET", "/aps/2/instances", { token: adminToken })).json as { rootResource: string }[]
      )[0]!.rootResource;
      expect(rootResource).toMatch(/^[0-9a-f-]{36}$/);
    }, 90_000);

    it("a second node with an empty data folder uses the same keys and CA, with a server certificate of its own", async () => {
      b = await start(bDir, { deploymentKey });
      expect(b.caCert).toBe(a.caCert);
      expect(readFileSync(join(bDir, "tls/ca.crt"), "utf8")).toBe(a.caCert);
      const serverOf = (dir: string) => readFileSync(join(dir, "tls/server.crt"), "utf8");
      expect(serverOf(bDir)).not.toBe(serverOf(aDir));
      expect(isIssuedBy(serverOf(bDir), a.caCert)).toBe(true);
      // The deployment's secrets stay in the database: none is copied into the new node's folder.
      expect(existsSync(join(bDir, "keys"))).toBe(false);
      for (const file of ["ca.key", "controller-client.crt", "controller-client.key"])
        expect(existsSync(join(bDir, "tls", file)), file).toBe(false);
      expect(b.provider.accountId).toBe(a.provider.accountId);
    }, 60_000);

    it("takes on one node the tokens minted on the other: aps-gen token, and each node's admin token", async () => {
      const onB = httpsClient(b.url, b.caCert);
      const onA = httpsClient(a.url, a.caCert);
      expect((await onB("GET", "/aps/2/resources", { token: tokenOfA })).status).toBe(200);
      expect(
        (await onB("GET", "/aps/2/resources", { token: readFileSync(a.provider.adminTokenPath, "utf8").trim() }))
          .status,
      ).toBe(200);
      expect(
        (await onA("GET", "/aps/2/resources", { token: readFileSync(b.provider.adminTokenPath, "utf8").trim() }))
          .status,
      ).toBe(200);
      // A token signed with another key is still refused: the nodes do check.
      const forged = await new TokenService(randomBytes(32)).mint({
        accountId: a.provider.accountId,
        userId: a.provider.adminUserId,
      });
      expect((await onB("GET", "/aps/2/resources", { token: forged })).status).toBe(401);
    });

    it("accepts on one node the instance certificate issued through the other, and opens for it the encrypted property sealed there", async () => {
      const credentials = credentialsOf(app);
      for (const node of [a, b]) {
        const asApplication = httpsClient(node.url, node.caCert, credentials);
        const read = await asApplication("GET", `/aps/2/resources/${rootResource}`);
        expect(read.status, read.text).toBe(200);
        expect(read.json.aps.type).toBe(CLOUDMAIL);
        expect(read.json.apiSecret).toBe(apiSecret);
        expect((await asApplication("GET", "/aps/2/application")).status).toBe(200);
      }
      // Sealed through B, opened through A.
      const admin = readFileSync(b.provider.adminTokenPath, "utf8").trim();
      const changed = await httpsClient(b.url, b.caCert)("PUT", `/aps/2/resources/${rootResource}`, {
        token: admin,
        body: { apiSecret: `${apiSecret}-2` },
      });
      expect(changed.status, changed.text).toBe(200);
      expect(
        (await httpsClient(a.url, a.caCert, credentials)("GET", `/aps/2/resources/${rootResource}`)).json.apiSecret,
      ).toBe(`${apiSecret}-2`);
    });

    it("holds no key in clear in the database", async () => {
      const rows = await sealedRows(database.url);
      const keys = (dir: string, file: string) => readFileSync(join(dir, file), "utf8");
      const pemBody = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ""), "base64");
      const token = Buffer.from(keys(aDir, "keys/token.key").trim(), "base64");
      const encryption = Buffer.from(keys(aDir, "keys/encryption.key").trim(), "base64");
      const caKey = keys(aDir, "tls/ca.key");
      const clientKey = keys(aDir, "tls/controller-client.key");
      const plain = [
        token,
        encryption,
        Buffer.from(token.toString("base64")),
        Buffer.from(encryption.toString("base64")),
        Buffer.from(caKey),
        pemBody(caKey),
        Buffer.from(clientKey),
        pemBody(clientKey),
        Buffer.from(a.caCert),
        pemBody(a.caCert),
        Buffer.from("PRIVATE KEY"),
        Buffer.from("CERTIFICATE"),
      ];
      expect(rows.size).toBe(6);
      for (const [name, sealed] of rows) {
        for (const [i, bytes] of plain.entries())
          expect(sealed.includes(bytes), `${name} holds plaintext #${i}`).toBe(false);
      }
      // And they are those keys: the deployment key opens them to exactly A's files.
      expect(deploymentKey.open("token-key", rows.get("token-key")!).equals(token)).toBe(true);
      expect(deploymentKey.open("ca-private-key", rows.get("ca-private-key")!).toString("utf8")).toBe(caKey);
    });

    it("refuses a start with another deployment key in one line, writing nothing to the node or the database", async () => {
      const before = await sealedRows(database.url);
      const cDir = join(root, "c");
      const error = await refusal(
        start(cDir, { deploymentKey: DeploymentKey.fromText(randomBytes(32).toString("base64"), "wrong") }),
      );
      expect(error.reason).toBe("deployment-key-wrong");
      expect(error.message).toBe(
        "the deployment key does not open the keys stored in the database: it is not the key they were sealed with (nothing was changed)",
      );
      expect(await sealedRows(database.url)).toEqual(before);
      expect(readdirSync(cDir)).toEqual([]);
      // The nodes that have the right key serve on.
      expect((await httpsClient(a.url, a.caCert)("GET", "/aps/2/resources", { token: tokenOfA })).status).toBe(200);
    });

    it("refuses a key variable that names another key than the stored one, rather than ignore it", async () => {
      const db = await openDatabase({ dataDir: root, url: database.url, migrate: false });
      try {
        const error = await establishDeploymentSecrets(db.db, deploymentKey, join(root, "d"), {
          APS_TOKEN_KEY: randomBytes(32).toString("base64"),
        }).catch((e: unknown) => e as ControllerStartError);
        expect(error).toBeInstanceOf(ControllerStartError);
        expect((error as ControllerStartError).reason).toBe("deployment-key-unusable");
        expect((error as ControllerStartError).message).toMatch(
          /^APS_TOKEN_KEY is not the deployment's token key stored in the database; unset it/,
        );
        const same = await establishDeploymentSecrets(db.db, deploymentKey, join(root, "d"), {
          APS_TOKEN_KEY: readFileSync(join(aDir, "keys/token.key"), "utf8").trim(),
        });
        expect(same.stored).toBe(false);
      } finally {
        await db.close();
      }
    });

    it("refuses a deployment key on the embedded database in one line", async () => {
      const error = await refusal(
        startController({
          ...model,
          port: 0,
          dataDir: join(root, "embedded"),
          deploymentKey,
          logger: pino({ level: "silent" }),
        }),
      );
      expect(error.reason).toBe("deployment-key-unusable");
      expect(error.message).toMatch(
        /^a deployment key shares the keys of controllers on one PostgreSQL database; the embedded database serves one controller/,
      );
    });

    /** The install body with the API secret of this suite. */
    function withSecret(body: unknown): unknown {
      const b = body as { settings?: Record<string, unknown> };
      return b.settings ? { ...b, settings: { ...b.settings, apiSecret } } : body;
    }
  },
);

describe.skipIf(!process.env.DATABASE_URL)(
  "controllers starting at once on a database without keys (skipped without DATABASE_URL)",
  () => {
    const root = mkdtempSync(join(tmpdir(), "aps-shared-race-"));
    const deploymentKey = DeploymentKey.fromText(randomBytes(32).toString("base64"), "test");
    const databases: ScratchDatabase[] = [];
    afterAll(async () => {
      for (const database of databases) await database.drop();
      rmSync(root, { recursive: true, force: true });
    });

    it("two controllers end with one set of keys, one CA and one provider account", async () => {
      const database = await migratedDatabase("aps_shared_race", root);
      databases.push(database);
      const model = await controllerModel(["test/fixtures/controller/notes"]);
      const start = (name: string) =>
        startController({
          ...model,
          host: "127.0.0.1",
          port: 0,
          dataDir: join(root, name),
          databaseUrl: database.url,
          migrate: false,
          deploymentKey,
          logger: pino({ level: "silent" }),
        });
      const [x, y] = await Promise.all([start("x"), start("y")]);
      try {
        expect(x.caCert).toBe(y.caCert);
        expect(x.provider.accountId).toBe(y.provider.accountId);
        expect((await sealedRows(database.url)).size).toBe(6);
        expect(
          (
            await httpsClient(y.url, y.caCert)("GET", "/aps/2/resources", {
              token: readFileSync(x.provider.adminTokenPath, "utf8").trim(),
            })
          ).status,
        ).toBe(200);
        expect(
          (
            await httpsClient(x.url, x.caCert)("GET", "/aps/2/resources", {
              token: readFileSync(y.provider.adminTokenPath, "utf8").trim(),
            })
          ).status,
        ).toBe(200);
        const sql = postgres(database.url, { max: 1, onnotice: () => {} });
        try {
          const [roots] =
            await sql`select count(*)::int as n from resources where type_id = 'http://aps-standard.org/types/core/account/1.0' and owner_path = '/' || id::text || '/'`;
          expect(roots!.n).toBe(1);
        } finally {
          await sql.end();
        }
      } finally {
        await Promise.all([x.close(), y.close()]);
      }
    }, 90_000);

    it("eight nodes storing theirs at the same moment: one set wins whole, and each reads the winner's", async () => {
      const database = await migratedDatabase("aps_shared_race8", root);
      databases.push(database);
      const db = await openDatabase({ dataDir: root, url: database.url, migrate: false });
      try {
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            establishDeploymentSecrets(db.db, deploymentKey, join(root, `node-${i}`), {}),
          ),
        );
        expect(results.filter((r) => r.stored)).toHaveLength(1);
        for (const r of results) expect(sameSecrets(r.secrets, results[0]!.secrets)).toBe(true);
        expect((await sealedRows(database.url)).size).toBe(6);

        // The insert itself from eight connections at the same moment (sets sealed beforehand, so
        // the statements overlap), round after round on an emptied table: never an error, never a mix.
        for (let round = 0; round < 5; round++) {
          await db.db.execute(sqlText`delete from deployment_secrets`);
          const sets = Array.from(
            { length: 8 },
            (_, i) =>
              new Map(
                ["token-key", "encryption-key", "ca-certificate"].map((name) => [
                  name,
                  Buffer.from(`${round}/${i}/${name}`),
                ]),
              ),
          );
          const read = await Promise.all(sets.map((set) => storeSealedSecretsUnlessPresent(db.db, set)));
          const winner = sets.findIndex((set) =>
            Buffer.from(set.get("token-key")!).equals(Buffer.from(read[0]!.get("token-key")!)),
          );
          expect(winner, `round ${round}`).toBeGreaterThanOrEqual(0);
          for (const got of read)
            expect([...got].map(([n, v]) => `${n}=${Buffer.from(v).toString()}`).sort()).toEqual(
              [...sets[winner]!].map(([n, v]) => `${n}=${v.toString()}`).sort(),
            );
        }

        // A table holding part of a set is never completed with another node's parts: a start stops, naming what is missing.
        await db.db.execute(sqlText`delete from deployment_secrets where name <> 'token-key'`);
        const incomplete = await establishDeploymentSecrets(db.db, deploymentKey, join(root, "node-late"), {}).catch(
          (e: unknown) => e as ControllerStartError,
        );
        expect(incomplete).toBeInstanceOf(ControllerStartError);
        expect((incomplete as ControllerStartError).message).toMatch(
          /^the database holds an incomplete set of the deployment's keys \(encryption-key, ca-certificate, ca-private-key, controller-client-certificate, controller-client-private-key missing\)/,
        );
        expect([...(await sealedRows(database.url)).keys()]).toEqual(["token-key"]);
      } finally {
        await db.close();
      }
    }, 60_000);
  },
);
