/**
 * Issue 29, every core: `aps-gen serve --workers 2` as a real process on PostgreSQL. Two worker
 * processes answer behind one port (told apart by the pid /healthz gives); one killed is replaced
 * while the other keeps answering; a token whose account is deleted through one worker is refused
 * by the other within the revocation feed's poll; /metrics counts the requests of both; the
 * console's live log, read from one worker, shows the calls to an application made by both, and
 * goes on when the other is killed and replaced; SIGTERM stops all of them. On PGlite `--workers 2` says in one line that it serves from one process.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EndpointCallEntry } from "../../runtime/common/endpoint-call-entry.ts";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { httpsClient, type HttpReply } from "../helpers/https-client.ts";
import { builtCli } from "../helpers/packed-package.ts";
import { repoRoot } from "../helpers/paths.ts";
import { scratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { until } from "../helpers/until.ts";
import { installCloudmailAt, startFakeApplication } from "./fake-application.ts";
import { killHard, serveProcess, type ServeProcess } from "./serve-process.ts";

const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";
const TENANT = "http://cloudmail.example.com/types/tenant/1.0";
/** The promise of docs/operating.md: a revoked account's tokens are refused by every process within 3 s (a 1 s poll, with room for a loaded machine). */
const REVOKED_WITHIN_MS = 3000;

/** A client whose requests all go over one kept-alive connection, so to the one worker that accepted it. */
function pinnedClient(url: string, ca: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca });
  const call = (method: string, path: string, token?: string): Promise<HttpReply> =>
    new Promise((resolve, reject) => {
      const req = request(
        new URL(path, url),
        { method, agent, headers: token ? { "aps-token": token } : {} },
        (res) => {
          let text = "";
          res.on("data", (d: Buffer) => (text += String(d)));
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text,
              json: text.startsWith("{") ? JSON.parse(text) : undefined,
            }),
          );
        },
      );
      req.on("error", reject);
      req.end();
    });
  return { call, pid: async () => (await call("GET", "/healthz")).json.pid as number, close: () => agent.destroy() };
}

/**
 * The console's live log (`GET /aps/2/console/calls`) followed over a connection of its own: the
 * pid of the worker that serves it (asked over the same connection first) and the entries so far.
 */
async function liveLog(url: string, ca: string, token: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca });
  const pid = await new Promise<number>((resolve, reject) => {
    const req = request(new URL("/healthz", url), { agent }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += String(d)));
      res.on("end", () => resolve(JSON.parse(text).pid as number));
    });
    req.on("error", reject);
    req.end();
  });
  const entries: EndpointCallEntry[] = [];
  const req = request(new URL("/aps/2/console/calls", url), { agent, headers: { "aps-token": token } });
  const opened = new Promise<void>((resolve, reject) => {
    req.on("response", (res) => {
      if (res.statusCode !== 200) reject(new Error(`the live log answered ${res.statusCode}`));
      let buffer = "";
      res.on("data", (d: Buffer) => {
        buffer += String(d);
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const lines = buffer.slice(0, end).split("\n");
          buffer = buffer.slice(end + 2);
          const data = lines.find((l) => l.startsWith("data: "));
          if (!data) continue;
          const entry = JSON.parse(data.slice(6)) as EndpointCallEntry;
          expect(lines.find((l) => l.startsWith("id: "))).toBe(`id: ${entry.id}`);
          entries.push(entry);
        }
      });
      resolve();
    });
    req.on("error", reject);
  });
  req.end();
  await opened;
  // The stream went over the connection /healthz was asked on: the same worker.
  expect(req.reusedSocket).toBe(true);
  return { pid, entries, close: () => agent.destroy() };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!process.env.DATABASE_URL)(
  "aps-gen serve --workers 2 on PostgreSQL (skipped without DATABASE_URL)",
  () => {
    const dataDir = mkdtempSync(join(tmpdir(), "aps-workers-"));
    let database: ScratchDatabase;
    let serve: ServeProcess;
    let url: string;
    let ca: string;
    let adminToken: string;
    let call: ReturnType<typeof httpsClient>;
    let stderr = "";

    beforeAll(async () => {
      database = await scratchDatabase("aps_workers");
      serve = await serveProcess(dataDir, database.url, ["--workers", "2"]);
      serve.child.stderr!.on("data", (d: Buffer) => (stderr += String(d)));
      url = await serve.url;
      ca = readFileSync(join(dataDir, "tls/ca.crt"), "utf8");
      adminToken = readFileSync(join(dataDir, "admin.token"), "utf8").trim();
      call = httpsClient(url, ca);
    }, 120_000);
    afterAll(async () => {
      if (serve) await killHard(serve);
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    /** /healthz over a connection of its own (the cluster hands new connections to the workers in turn). */
    const health = () => call("GET", "/healthz", { headers: { connection: "close" } });
    /** The pids that answer /healthz over fresh connections. */
    const answering = async (tries = 8): Promise<Set<number>> => {
      const pids = new Set<number>();
      for (let i = 0; i < tries; i++) pids.add((await health()).json.pid as number);
      return pids;
    };

    it("serves from two worker processes behind one port, and replaces one that is killed while the other answers", async () => {
      const pids = await answering();
      expect(pids.size).toBe(2);
      expect(pids.has(serve.child.pid!)).toBe(false);
      const [killed, survivor] = [...pids] as [number, number];
      process.kill(killed, "SIGKILL");
      await until("the killed worker to be gone", async () => !alive(killed), 5000);
      // The other keeps answering every request meanwhile.
      for (let i = 0; i < 6; i++) {
        const reply = await health();
        expect(reply.status).toBe(200);
        expect(reply.json.pid).toBe(survivor);
      }
      // A new worker takes the dead one's place (at once: it had served for a while, or after a short wait).
      let now = new Set<number>();
      await until("a replacement worker to answer", async () => (now = await answering(4)).size === 2, 30_000);
      expect(now.has(survivor)).toBe(true);
      expect(now.has(killed)).toBe(false);
      expect(stderr).toMatch(new RegExp(`worker \\d \\(pid ${killed}\\) ended \\(SIGKILL\\); starting another`));
    }, 60_000);

    it("refuses on one worker, within the revocation poll, the token of an account deleted through the other", async () => {
      const created = await call("POST", "/aps/2/resources", {
        token: adminToken,
        body: { aps: { type: ACCOUNT }, companyName: "seen by two workers", addressPostal: {} },
      });
      expect(created.status, created.text).toBe(201);
      const id = created.json.aps.id as string;
      const token = await new TokenService(loadKeys(dataDir).token).mint({ accountId: id });
      // One connection to each worker.
      const one = pinnedClient(url, ca);
      let other = pinnedClient(url, ca);
      const onePid = await one.pid();
      for (let i = 0; i < 8 && (await other.pid()) === onePid; i++) {
        other.close();
        other = pinnedClient(url, ca);
      }
      const otherPid = await other.pid();
      expect(otherPid).not.toBe(onePid);
      try {
        // Both have the token verified and the account cached.
        for (const worker of [one, other])
          for (let i = 0; i < 3; i++) expect((await worker.call("GET", "/aps/2/resources", token)).status).toBe(200);
        const started = Date.now();
        expect((await one.call("DELETE", `/aps/2/resources/${id}`, adminToken)).status).toBe(204);
        await until(
          "the other worker to refuse the token",
          async () => (await other.call("GET", "/aps/2/resources", token)).status === 401,
          10_000,
        );
        expect(Date.now() - started).toBeLessThan(REVOKED_WITHIN_MS);
        // Still the same two workers, each on its own connection.
        expect([await one.pid(), await other.pid()]).toEqual([onePid, otherPid]);
      } finally {
        one.close();
        other.close();
      }
    }, 60_000);

    it("answers /metrics with the requests of both workers summed, whichever worker is asked", async () => {
      const count = (text: string) =>
        Number(/^aps_http_requests_total\{method="GET",route="\/healthz",status="200"\} (\d+)$/m.exec(text)?.[1] ?? 0);
      const before = count((await call("GET", "/metrics")).text);
      const pids = await answering(6);
      expect(pids.size).toBe(2);
      // Six answered by two workers: each scrape, on either, sees all six.
      for (let i = 0; i < 2; i++) expect(count((await call("GET", "/metrics")).text)).toBe(before + 6);
      // The queue gauges count the same rows in every worker: one figure, not two summed.
      expect((await call("GET", "/metrics")).text).toMatch(/^aps_task_queue_depth 0$/m);
    }, 30_000);

    it("shows in one live log the calls to an application made by both workers, and goes on when the other worker is killed", async () => {
      const appDir = mkdtempSync(join(tmpdir(), "aps-workers-app-"));
      const app = await startFakeApplication(appDir);
      const onNewConnection = (method: string, path: string, options: { token: string; body?: unknown }) =>
        call(method, path, { ...options, headers: { connection: "close" } });
      let log: Awaited<ReturnType<typeof liveLog>> | undefined;
      try {
        await installCloudmailAt({ adminToken, call: onNewConnection }, app);
        const account = (
          await onNewConnection("POST", "/aps/2/resources", {
            token: adminToken,
            body: { aps: { type: ACCOUNT }, companyName: "Customer of CloudMail", addressPostal: {} },
          })
        ).json.aps.id as string;
        const customer = await new TokenService(loadKeys(dataDir).token).mint({ accountId: account });
        const subscription = (
          await onNewConnection("POST", "/aps/2/resources", {
            token: customer,
            body: { aps: { type: "http://aps-standard.org/types/core/subscription/1.0" } },
          })
        ).json.aps.id as string;
        log = await liveLog(url, ca, adminToken);
        const live = log;
        /** Tenants made over new connections, so by both workers in turn: each one call to the application. */
        const tenants = async (count: number): Promise<string[]> => {
          const ids: string[] = [];
          for (let i = 0; i < count; i++) {
            const made = await onNewConnection("POST", "/aps/2/resources", {
              token: customer,
              body: {
                aps: { type: TENANT },
                account: { aps: { id: account } },
                subscription: { aps: { id: subscription } },
              },
            });
            expect(made.status, made.text).toBe(201);
            ids.push(made.json.aps.id as string);
          }
          return ids;
        };
        /** The live log's entries of the calls that provisioned `ids`, once it has one for each. */
        const logged = (ids: readonly string[]) =>
          until(
            `the live log to show the provisioning of ${ids.length} tenants`,
            () => {
              const calls = live.entries.filter(
                (e) => e.path === "/tenants" && ids.some((id) => e.requestBody?.includes(id)),
              );
              return calls.length === ids.length && calls;
            },
            15_000,
          );
        const inOrder = () => {
          const ids = live.entries.map((e) => e.id);
          expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
        };

        const first = await logged(await tenants(6));
        expect(new Set(first.map((e) => e.worker))).toEqual(new Set([1, 2]));
        inOrder();

        const others = [...(await answering(6))].filter((pid) => pid !== live.pid);
        expect(others).toHaveLength(1);
        process.kill(others[0]!, "SIGKILL");
        await until("the killed worker to be gone", async () => !alive(others[0]!), 5000);
        await until(
          "a replacement worker to answer",
          async () => {
            const now = await answering(4);
            return now.size === 2 && now.has(live.pid) && !now.has(others[0]!);
          },
          30_000,
        );
        // Still the one stream: the replacement's calls reach it through the primary, as the survivor's do.
        const second = await logged(await tenants(6));
        expect(new Set(second.map((e) => e.worker))).toEqual(new Set([1, 2]));
        inOrder();
      } finally {
        log?.close();
        await app.close();
        rmSync(appDir, { recursive: true, force: true });
      }
    }, 90_000);

    it("keeps serving on the port it printed when every worker is killed at once (started with --port 0)", async () => {
      // The cluster closes a port once no worker holds it: replacements asking for port 0 again
      // would each get a new one, away from the printed URL (cli/serve/workers/shared-port.ts).
      const pids = [...(await answering(6))];
      expect(pids).toHaveLength(2);
      for (const pid of pids) process.kill(pid, "SIGKILL");
      await until("both workers gone", async () => pids.every((pid) => !alive(pid)), 5000);
      let now = new Set<number>();
      await until(
        "two new workers answering at the printed URL",
        async () => (now = await answering(4).catch(() => new Set<number>())).size === 2,
        30_000,
      );
      for (const pid of pids) expect(now.has(pid)).toBe(false);
    }, 60_000);

    it("stops every worker on SIGTERM and exits 0", async () => {
      const pids = await answering(4);
      const exited = new Promise<number | null>((r) => serve.child.once("exit", (code) => r(code)));
      serve.child.kill("SIGTERM");
      expect(await exited).toBe(0);
      for (const pid of pids) expect(alive(pid)).toBe(false);
      expect(stderr).toContain("stopping: finishing running requests");
    }, 30_000);
  },
);

describe.skipIf(!process.env.DATABASE_URL)(
  "aps-gen serve --workers 2 --port 0 on an address it cannot listen on",
  () => {
    it("says so in one line and exits 2, before starting any worker", async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "aps-workers-host-"));
      try {
        const ended = spawnSync(
          process.execPath,
          [
            await builtCli(),
            "serve",
            ...["--types", "types/examples/cloudmail", "--workers", "2", "--port", "0"],
            ...["--host", "203.0.113.1", "--data", dataDir],
          ],
          { cwd: repoRoot, encoding: "utf8", env: { ...process.env, LOG_LEVEL: "warn" } },
        );
        expect(ended.status, ended.stderr).toBe(2);
        expect(ended.stderr.trim().split("\n").at(-1)).toBe(
          "aps-gen serve: cannot listen on 203.0.113.1:0: no such address on this machine",
        );
        expect(ended.stderr).not.toMatch(/\n\s+at /);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }, 60_000);
  },
);

describe("aps-gen serve --workers 2 on PGlite", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "aps-workers-pglite-"));
  let serve: ServeProcess | undefined;
  afterAll(async () => {
    if (serve) await killHard(serve);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("says in one line that the embedded database is served by one process, and serves from that one", async () => {
    let stderr = "";
    serve = await serveProcess(dataDir, undefined, ["--workers", "2"]);
    serve.child.stderr!.on("data", (d: Buffer) => (stderr += String(d)));
    const url = await serve.url;
    const call = httpsClient(url, readFileSync(join(dataDir, "tls/ca.crt"), "utf8"));
    for (let i = 0; i < 3; i++) expect((await call("GET", "/healthz")).json.pid).toBe(serve.child.pid);
    const exited = new Promise<number | null>((r) => serve!.child.once("exit", (code) => r(code)));
    serve.child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stderr.match(/PGlite serves from one process: --workers 2 runs as 1/g)).toHaveLength(1);
  }, 90_000);
});
