/**
 * Issue 30: a second node joins a deployment with one documented command. `aps-gen join` checks
 * the deployment's database, opens its keys with the deployment key and writes the node's data
 * folder; the `serve --no-migrate` command it prints then starts a controller that the first
 * node's tokens and CA are good for. Run as processes, as an operator runs them: exit codes,
 * one-line refusals without a stack trace.
 */
import { spawn } from "node:child_process";
import { randomBytes, X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeploymentKey, startController, type RunningController } from "../../runtime/controller/serve.ts";
import { runCli } from "../helpers/cli-run.ts";
import { controllerModel } from "../helpers/controller-model.ts";
import { httpsClient } from "../helpers/https-client.ts";
import { repoRoot } from "../helpers/paths.ts";
import { scratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";

const cli = join(repoRoot, "bin/aps-gen.js");

/**
 * `aps-gen <argv>` as a process, to its end. Not spawnSync: a test process blocked for seconds
 * keeps its kept-alive HTTPS sockets from seeing the server close them, and reuses a dead one.
 */
async function aps(
  argv: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string[]; err: string[] }> {
  const child = spawn(process.execPath, [cli, ...argv], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60_000,
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += String(d)));
  child.stderr.on("data", (d: Buffer) => (err += String(d)));
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  const lines = (text: string) => text.split("\n").filter(Boolean);
  return { code, out: lines(out), err: lines(err) };
}

describe.skipIf(!process.env.DATABASE_URL)("aps-gen join (skipped without DATABASE_URL)", () => {
  const root = mkdtempSync(join(tmpdir(), "aps-join-"));
  const keyFile = join(root, "deployment.key");
  const wrongKeyFile = join(root, "wrong.key");
  let database: ScratchDatabase;
  let first: RunningController | undefined;
  const nodeB = join(root, "b");

  beforeAll(async () => {
    writeFileSync(keyFile, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600 });
    writeFileSync(wrongKeyFile, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600 });
    database = await scratchDatabase("aps_join");
  });
  afterAll(async () => {
    await first?.close();
    await database?.drop();
    rmSync(root, { recursive: true, force: true });
  });

  it("refuses, exit 1 in one line, a database that is not migrated or where no controller has stored the keys yet", async () => {
    const unmigrated = await aps([
      "join",
      "--database-url",
      database.url,
      "--data",
      nodeB,
      "--deployment-key-file",
      keyFile,
    ]);
    expect(unmigrated.code).toBe(1);
    expect(unmigrated.err).toEqual([
      expect.stringMatching(
        /^aps-gen join: the database at .* has \d+ of \d+ migrations not applied: run `aps-gen migrate`, then start the first controller with the deployment key$/,
      ),
    ]);
    const migrated = await runCli(["migrate", "--database-url", database.url, "--data", root]);
    expect(migrated.code, migrated.err.join("\n")).toBe(0);
    const noKeys = await aps([
      "join",
      "--database-url",
      database.url,
      "--data",
      nodeB,
      "--deployment-key-file",
      keyFile,
    ]);
    expect(noKeys.code).toBe(1);
    expect(noKeys.err).toEqual([
      expect.stringMatching(
        /^aps-gen join: the database at .* holds no deployment keys yet: start the first controller with `aps-gen serve --deployment-key-file FILE`/,
      ),
    ]);
    expect(existsSync(nodeB)).toBe(false);
  }, 120_000);

  it("joins a node with one command, whose printed serve --no-migrate starts a controller the first node's tokens and CA are good for", async () => {
    // The first node: started with the deployment key, it stores its keys in the database.
    const model = await controllerModel(["test/fixtures/controller/notes"]);
    first = await startController({
      ...model,
      host: "127.0.0.1",
      port: 0,
      dataDir: join(root, "a"),
      databaseUrl: database.url,
      migrate: false,
      deploymentKey: DeploymentKey.fromText(readFileSync(keyFile, "utf8"), keyFile),
      logger: pino({ level: "silent" }),
    });

    const joined = await aps([
      "join",
      "--database-url",
      database.url,
      "--data",
      nodeB,
      "--deployment-key-file",
      keyFile,
      "--host",
      "node-b.example.test",
      "--host",
      "10.9.8.7",
    ]);
    expect(joined.err).toEqual([]);
    expect(joined.code).toBe(0);
    expect(joined.out[0]).toBe(`✓ joined the deployment on ${database.url}: the deployment key opens its keys`);
    expect(joined.out.slice(1, 4)).toEqual([
      `  server certificate for node-b.example.test, 10.9.8.7, localhost, 127.0.0.1: ${join(nodeB, "tls/server.crt")} (issued by the deployment's CA)`,
      `  CA certificate: ${join(nodeB, "tls/ca.crt")}`,
      `  admin token in ${join(nodeB, "admin.token")}`,
    ]);
    expect(readFileSync(join(nodeB, "tls/ca.crt"), "utf8")).toBe(first.caCert);
    const server = new X509Certificate(readFileSync(join(nodeB, "tls/server.crt"), "utf8"));
    expect(server.subjectAltName).toBe(
      "DNS:node-b.example.test, IP Address:10.9.8.7, DNS:localhost, IP Address:127.0.0.1",
    );
    expect(server.verify(new X509Certificate(first.caCert).publicKey)).toBe(true);
    expect(existsSync(join(nodeB, "keys"))).toBe(false);
    expect(existsSync(join(nodeB, "tls/ca.key"))).toBe(false);

    const printed = joined.out.find((line) => line.startsWith("  aps-gen serve "));
    expect(printed).toBe(
      `  aps-gen serve --data ${nodeB} --database-url ${database.url} --deployment-key-file ${keyFile} --no-migrate`,
    );
    const serveArgs = printed!.trim().split(/\s+/).slice(1);
    const child = spawn(
      process.execPath,
      [
        "--liftoff-only",
        cli,
        ...serveArgs,
        "--types",
        "test/fixtures/controller/notes",
        "--port",
        "0",
        "--workers",
        "1",
      ],
      { cwd: repoRoot, env: { ...process.env, LOG_LEVEL: "warn" }, stdio: ["ignore", "ignore", "pipe"] },
    );
    try {
      let err = "";
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on("data", (d: Buffer) => {
          err += String(d);
          const m = err.match(/controller on (https:\/\/\S+)/);
          if (m && err.includes("admin token in")) resolve(m[1]!);
        });
        child.on("exit", (code) => reject(new Error(`serve ended (${code}): ${err}`)));
      });
      const onB = httpsClient(url, first.caCert);
      const adminOfA = readFileSync(first.provider.adminTokenPath, "utf8").trim();
      const adminOfB = readFileSync(join(nodeB, "admin.token"), "utf8").trim();
      expect((await onB("GET", "/aps/2/resources", { token: adminOfA })).status).toBe(200);
      expect((await httpsClient(first.url, first.caCert)("GET", "/aps/2/resources", { token: adminOfB })).status).toBe(
        200,
      );
      // The start kept the certificate join issued (the names it was joined with).
      expect(new X509Certificate(readFileSync(join(nodeB, "tls/server.crt"), "utf8")).fingerprint256).toBe(
        server.fingerprint256,
      );

      // `aps-gen token` on the joined node: with the deployment key it signs with the deployment's token key.
      const token = await aps([
        "token",
        "--data",
        nodeB,
        "--account",
        first.provider.accountId,
        "--deployment-key-file",
        keyFile,
        "--database-url",
        database.url,
      ]);
      expect(token.code, token.err.join("\n")).toBe(0);
      expect((await onB("GET", "/aps/2/resources", { token: token.out[0]! })).status).toBe(200);
      const withoutKey = await aps(["token", "--data", nodeB]);
      expect(withoutKey.code).toBe(2);
      expect(withoutKey.err).toEqual([
        expect.stringMatching(/is not a controller's data folder .*the deployment key and database$/),
      ]);

      const gone = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
      child.kill("SIGTERM");
      expect(await gone).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 180_000);

  it("refuses another deployment key: exit 1, one line, no stack trace, nothing written", async () => {
    const nodeC = join(root, "c");
    const wrong = await aps([
      "join",
      "--database-url",
      database.url,
      "--data",
      nodeC,
      "--deployment-key-file",
      wrongKeyFile,
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toEqual([
      "aps-gen join: the deployment key does not open the keys stored in the database: it is not the key they were sealed with (nothing was changed)",
    ]);
    expect(existsSync(nodeC)).toBe(false);
    const token = await aps([
      "token",
      "--data",
      nodeC,
      "--deployment-key-file",
      wrongKeyFile,
      "--database-url",
      database.url,
    ]);
    expect(token.code).toBe(1);
    expect(token.err).toHaveLength(1);
  }, 60_000);

  it("bad usage is exit 2 in one line: no database, no key, a key that is not one, a key file that is not there", async () => {
    const nodeD = join(root, "d");
    const shortKey = join(root, "short.key");
    writeFileSync(shortKey, "c2hvcnQ=\n");
    const cases: [string[], Record<string, string>, RegExp][] = [
      [
        ["join", "--data", nodeD, "--deployment-key-file", keyFile],
        { DATABASE_URL: "" },
        /^aps-gen join: name the deployment's PostgreSQL database with --database-url or DATABASE_URL/,
      ],
      [
        ["join", "--data", nodeD, "--database-url", database.url],
        { APS_DEPLOYMENT_KEY: "" },
        /^aps-gen join: give the deployment key: --deployment-key-file FILE, or APS_DEPLOYMENT_KEY$/,
      ],
      [
        ["join", "--data", nodeD, "--database-url", database.url, "--deployment-key-file", shortKey],
        {},
        /^aps-gen join: the deployment key in .*short\.key must be at least 32 random bytes, base64-encoded \(make one with: openssl rand -base64 32\)$/,
      ],
      [
        ["join", "--data", nodeD, "--database-url", database.url],
        { APS_DEPLOYMENT_KEY: "not a key" },
        /^aps-gen join: the deployment key in APS_DEPLOYMENT_KEY must be at least 32 random bytes/,
      ],
      [
        ["join", "--data", nodeD, "--database-url", database.url, "--deployment-key-file", join(root, "absent.key")],
        {},
        /^aps-gen join: cannot read the deployment key file .*absent\.key: ENOENT$/,
      ],
      [
        [
          "serve",
          "--data",
          nodeD,
          "--types",
          "test/fixtures/controller/notes",
          "--port",
          "0",
          "--deployment-key-file",
          keyFile,
        ],
        { DATABASE_URL: "" },
        /^aps-gen serve: a deployment key shares the keys of controllers on one PostgreSQL database; the embedded database serves one controller/,
      ],
    ];
    for (const [argv, env, message] of cases) {
      const r = await aps(argv, env);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.err, argv.join(" ")).toEqual([expect.stringMatching(message)]);
    }
    expect(existsSync(join(nodeD, "tls"))).toBe(false);
  }, 120_000);

  it("takes the key from APS_DEPLOYMENT_KEY when no file is named, and the named file over it", async () => {
    const fromEnv = await aps(["join", "--database-url", database.url, "--data", join(root, "e")], {
      APS_DEPLOYMENT_KEY: readFileSync(keyFile, "utf8").trim(),
    });
    expect(fromEnv.code, fromEnv.err.join("\n")).toBe(0);
    expect(fromEnv.out.at(-1)).toBe(
      `  aps-gen serve --data ${join(root, "e")} --database-url ${database.url} --no-migrate (with APS_DEPLOYMENT_KEY set as now)`,
    );
    const fileWins = await aps(
      ["join", "--database-url", database.url, "--data", join(root, "f"), "--deployment-key-file", keyFile],
      { APS_DEPLOYMENT_KEY: readFileSync(wrongKeyFile, "utf8").trim() },
    );
    expect(fileWins.code, fileWins.err.join("\n")).toBe(0);
  }, 60_000);
});
