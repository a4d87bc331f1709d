/**
 * `aps-gen serve` while its PostgreSQL goes away and comes back, under requests: the server is a
 * private cluster (helpers/pg-cluster.ts), stopped, started and killed here without touching the
 * shared one other test files use.
 *
 * - Stopped (a fast shutdown, as a restart or a failover does): every request is answered 503
 *   with Retry-After in the error shape, within the connection time-out and the reconnect
 *   backoff (store/open-database.ts), /readyz says not ready and /healthz stays 200; each
 *   background loop says once that the database is gone and once that it is back; started
 *   again, requests succeed without restarting the controller, and every write acknowledged
 *   before and during the outage is there. An asynchronous provisioning whose next attempt fell
 *   due during the outage completes after it (the task loop resumed).
 * - Killed (-9 of the postmaster, then crash recovery): the same answers, nothing acknowledged lost.
 * - Provisionings waiting at an application when the database stops: afterwards the application
 *   holds no resource the controller does not know (the provisioning's own clean-up and the
 *   intent reconciler, runtime/controller/intents/).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { DATABASE_RETRY_AFTER_SECONDS } from "../../runtime/controller/store/database-unavailable.ts";
import { CONNECT_TIMEOUT_SECONDS } from "../../runtime/controller/store/open-database.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { type HttpReply, httpsClient } from "../helpers/https-client.ts";
import { type PgCluster, pgClusterSkipReason, startPgCluster } from "../helpers/pg-cluster.ts";
import { until } from "../helpers/until.ts";
import { type FakeApplication, installCloudmailAt, startFakeApplication, successOf } from "./fake-application.ts";
import { killHard, serveProcess, type ServeProcess } from "./serve-process.ts";

const T = "http://cloudmail.example.com/types";
const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";
/**
 * A short endpoint time-out and commit margin make the intents' lease 8 s (instead of 50), so
 * that the reconciler takes up what an outage left within seconds (as in provision-crash.test.ts).
 * The time-out is still 3 s, not 1: the application below answers after 700 ms, and on a machine
 * loaded past its 2 cores 1 s left too little room (three provisionings timed out, 504).
 */
const ARGS = ["--endpoint-timeout", "3", "--commit-margin", "5"];
/**
 * Every request is answered within this while the database is gone: one connection attempt
 * (CONNECT_TIMEOUT_SECONDS; a stopped server refuses at once) after at most 1 s of reconnect
 * backoff (open-database.ts reconnectBackoffSeconds).
 */
const ANSWER_BOUND_MS = CONNECT_TIMEOUT_SECONDS * 1000 + 1000;
/** Requests succeed again within this of the server accepting connections: the backoff's 1 s, with room for a loaded machine. */
const RECOVERY_BOUND_MS = 5_000;
/** The loops that must say, once each, that the database went and came back (their `work`, observability/database-outage-log.ts). */
const LOOPS = ["asynchronous tasks", "event delivery", "provisioning intents", "account revocation feed", "readiness"];
const GONE = "the database cannot be reached; waiting for it";
const BACK = "the database is reachable again; resumed";

const skip = pgClusterSkipReason();

/** One answer the load got. */
interface Answer {
  readonly at: number;
  readonly ms: number;
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly body: unknown;
}

type Call = ReturnType<typeof httpsClient>;

/**
 * Every request on a connection of its own (an explicit local address makes the client skip its
 * keep-alive pool): the workers of `serve` take connections in turn, so each gets its share, and
 * no request lands on a kept-alive connection the server is closing at that moment, which a
 * client sees as "socket hang up" whatever the database does.
 */
function onNewConnections(call: Call): Call {
  return (method, path, options = {}) => call(method, path, { ...options, localAddress: "127.0.0.1" });
}

/** The process ids of the workers that answer /healthz (a worker that died and was replaced has a new one). */
async function workerPids(call: Call): Promise<Set<number>> {
  const pids = new Set<number>();
  for (let i = 0; i < 8; i++) pids.add((await call("GET", "/healthz")).json.pid as number);
  return pids;
}

/**
 * Requests in a loop from `workers` clients until stopped: creates accounts (a write the
 * controller stores itself) and reads back one it created. Every answer is kept, and the ids of
 * the accounts acknowledged with 201.
 */
function startLoad(call: Call, token: string, workers = 4) {
  const answers: Answer[] = [];
  const acknowledged: string[] = [];
  let going = true;
  let n = 0;
  /** A request that got no answer at all (the connection failed) counts as status 0. */
  const timed = async (request: () => Promise<HttpReply>): Promise<HttpReply> => {
    const at = Date.now();
    const reply = await request().catch(
      (error: Error): HttpReply => ({ status: 0, headers: {}, text: error.message, json: { error: error.message } }),
    );
    answers.push({
      at,
      ms: Date.now() - at,
      status: reply.status,
      retryAfter: reply.headers["retry-after"] as string | undefined,
      body: reply.json,
    });
    return reply;
  };
  const worker = async () => {
    while (going) {
      const created = await timed(() =>
        call("POST", "/aps/2/resources", {
          token,
          body: { aps: { type: ACCOUNT }, companyName: `load ${n++}`, addressPostal: {} },
        }),
      );
      if (created.status === 201) acknowledged.push(created.json.aps.id as string);
      const some = acknowledged[Math.floor(Math.random() * acknowledged.length)];
      if (some) await timed(() => call("GET", `/aps/2/resources/${some}`, { token }));
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const running = Array.from({ length: workers }, worker);
  const load = {
    answers,
    acknowledged,
    async stop() {
      going = false;
      await Promise.all(running);
    },
  };
  loads.push(load);
  return load;
}

/** The loads started, stopped after each test even when it failed. */
const loads: { stop(): Promise<void> }[] = [];

interface LogLine {
  readonly pid: number;
  readonly level: number;
  readonly msg: string;
  readonly work?: string;
}

/** The controller's log lines (pino JSON) from `from` on, parsed. */
function linesOf(p: ServeProcess, from: number): LogLine[] {
  return p.logs.slice(from).flatMap((l) => {
    try {
      return [JSON.parse(l) as LogLine];
    } catch {
      return [];
    }
  });
}

/** How many lines ending in `suffix` each process and piece of work logged, by "<pid> <work>". */
function linesByWork(lines: readonly LogLine[], suffix: string): Map<string, number> {
  const by = new Map<string, number>();
  for (const l of lines)
    if (l.work && l.msg.endsWith(suffix)) by.set(`${l.pid} ${l.work}`, (by.get(`${l.pid} ${l.work}`) ?? 0) + 1);
  return by;
}

describe.skipIf(skip)(
  `aps-gen serve while its PostgreSQL goes away and comes back${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
    const dir = mkdtempSync(join(tmpdir(), "aps-db-outage-"));
    const dataDir = join(dir, "data");
    let cluster: PgCluster;
    let databaseUrl: string;
    let app: FakeApplication;
    let serve: ServeProcess;
    let call: Call;
    let adminToken: string;
    /** A customer's token, and the account and subscription its tenants link to. */
    let customer: { token: string; account: string; subscription: string };
    /** The workers' process ids at the start: the same ones serve throughout (no worker died and was replaced). */
    let workers: Set<number>;

    beforeAll(async () => {
      cluster = await startPgCluster();
      databaseUrl = await cluster.createDatabase("aps");
      app = await startFakeApplication(dir);
      serve = await serveProcess(dataDir, databaseUrl, ARGS, { logLevel: "warn" });
      call = onNewConnections(httpsClient(await serve.url, readFileSync(join(dataDir, "tls/ca.crt"), "utf8")));
      adminToken = readFileSync(join(dataDir, "admin.token"), "utf8").trim();
      await installCloudmailAt({ call, adminToken }, app);
      const account = (
        await call("POST", "/aps/2/resources", {
          token: adminToken,
          body: { aps: { type: ACCOUNT }, companyName: "Customer", addressPostal: {} },
        })
      ).json.aps.id as string;
      const token = await new TokenService(loadKeys(dataDir).token).mint({ accountId: account });
      const subscription = (
        await call("POST", "/aps/2/resources", {
          token,
          body: { aps: { type: "http://aps-standard.org/types/core/subscription/1.0" } },
        })
      ).json.aps.id as string;
      customer = { token, account, subscription };
      workers = await workerPids(call);
    }, 120_000);

    afterEach(async (context) => {
      await Promise.all(loads.splice(0).map((l) => l.stop()));
      // What a failure needs to be understood: the server's and the controller's last lines.
      if (context.task.result?.state === "fail")
        console.log(`PostgreSQL's log:\n${cluster.log(40)}\n\ncontroller's log:\n${serve.logs.slice(-20).join("\n")}`);
    });

    afterAll(async () => {
      if (serve) await killHard(serve);
      await app?.close();
      await cluster?.destroy();
      rmSync(dir, { recursive: true, force: true });
    });

    const tenantBody = () => ({
      aps: { type: `${T}/tenant/1.0` },
      account: { aps: { id: customer.account } },
      subscription: { aps: { id: customer.subscription } },
    });

    /** Rows of the controller's database, read directly. */
    const sql = async <R extends Record<string, unknown>>(text: string, values: unknown[] = []): Promise<R[]> => {
      const client = postgres(databaseUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
      try {
        return [...(await client.unsafe(text, values as never[]))] as unknown as R[];
      } finally {
        await client.end({ timeout: 1 });
      }
    };

    /** The outage's answers, checked: only successes and 503s with Retry-After in the error shape, each within the bound. */
    const checkAnswers = (answers: readonly Answer[]) => {
      const statuses = new Set(answers.map((a) => a.status));
      expect(
        [...statuses].filter((s) => ![200, 201, 503].includes(s)),
        "statuses other than 200, 201 and 503",
      ).toEqual([]);
      const refused = answers.filter((a) => a.status === 503);
      expect(refused.length, "no request was answered 503").toBeGreaterThan(0);
      for (const a of refused) {
        expect(a.retryAfter).toBe(String(DATABASE_RETRY_AFTER_SECONDS));
        expect(a.body).toMatchObject({
          code: 503,
          type: "ServiceUnavailable",
          error: "ServiceUnavailable",
          message: expect.stringMatching(/database cannot be reached/),
        });
      }
      const slowest = Math.max(...answers.map((a) => a.ms));
      expect(slowest, "a request took longer than the bound").toBeLessThan(ANSWER_BOUND_MS);
      return { refused: refused.length, slowest };
    };

    /** Polls until a write succeeds; the time it took from `since`. */
    const untilWritesSucceed = async (since: number) => {
      await until(
        "a write to succeed again",
        async () =>
          (
            await call("POST", "/aps/2/resources", {
              token: adminToken,
              body: { aps: { type: ACCOUNT }, companyName: "probe", addressPostal: {} },
            })
          ).status === 201,
        RECOVERY_BOUND_MS * 2,
      );
      return Date.now() - since;
    };

    /** Every account acknowledged with 201 is in the database. */
    const expectAllStored = async (acknowledged: readonly string[]) => {
      expect(acknowledged.length).toBeGreaterThan(0);
      const rows = await sql<{ id: string }>("select id::text as id from resources where id = any($1::uuid[])", [
        acknowledged,
      ]);
      const stored = new Set(rows.map((r) => r.id));
      expect(
        acknowledged.filter((id) => !stored.has(id)),
        "acknowledged writes lost",
      ).toEqual([]);
    };

    it("stopped: answers 503 with Retry-After, not ready but alive; started: serves again without a restart, nothing acknowledged lost, the loops resumed", async () => {
      // An asynchronous provisioning (202) whose next attempt falls due while the database is gone.
      let repeated = 0;
      app.answer = (c) => {
        if (c.method === "POST" && c.path === "/tenants") {
          if (c.headers["aps-request-phase"] === "async") {
            repeated++;
            return { status: 200, body: { organizationId: "org-after-outage" } };
          }
          return { status: 202, body: {}, headers: { "aps-info": "creating", "aps-retry-timeout": "2" } };
        }
        return successOf(c);
      };
      const pending = await call("POST", "/aps/2/resources", { token: customer.token, body: tenantBody() });
      expect(pending.status, pending.text).toBe(202);

      const logFrom = serve.logs.length;
      const load = startLoad(call, adminToken);
      await new Promise((r) => setTimeout(r, 1000));
      const beforeStop = load.acknowledged.length;

      await cluster.stop();
      const stopped = Date.now();
      // The first answer after the server is gone.
      const probe = await call("GET", `/aps/2/resources/${customer.account}`, { token: customer.token });
      const toFirst503 = Date.now() - stopped;
      expect(probe.status, probe.text).toBe(503);
      expect(probe.headers["retry-after"]).toBe(String(DATABASE_RETRY_AFTER_SECONDS));
      const readyz = await call("GET", "/readyz");
      expect(readyz.status).toBe(503);
      expect(readyz.json).toMatchObject({
        code: 503,
        type: "ServiceUnavailable",
        status: "not ready",
        database: "unreachable",
      });
      expect((await call("GET", "/healthz")).status).toBe(200);
      // Down until each loop has said so (the reconciler looks every 5 s), and at least past the task's due time.
      await until(
        "every loop to say the database is gone",
        () => LOOPS.every((work) => linesOf(serve, logFrom).some((l) => l.work === work && l.msg.endsWith(GONE))),
        15_000,
      );
      expect((await call("GET", "/readyz")).status).toBe(503);
      await new Promise((r) => setTimeout(r, Math.max(0, 3000 - (Date.now() - stopped))));
      expect(repeated, "the task ran while the database was gone").toBe(0);

      await cluster.start();
      const started = Date.now();
      const toRecovery = await untilWritesSucceed(started);
      expect(toRecovery).toBeLessThan(RECOVERY_BOUND_MS);
      expect((await call("GET", "/readyz")).status).toBe(200);
      await new Promise((r) => setTimeout(r, 500));
      await load.stop();

      const { refused, slowest } = checkAnswers(load.answers);
      await expectAllStored(load.acknowledged);
      expect(load.acknowledged.length, "no write was acknowledged after the outage").toBeGreaterThan(beforeStop);

      // The task loop resumed: the provisioning accepted before the outage completes after it.
      const done = await until(
        "the asynchronous provisioning to complete",
        async () => {
          const r = await call("GET", `/aps/2/resources/${pending.json.aps.id}`, { token: customer.token });
          return r.json?.aps?.status === "aps:ready" ? r.json : undefined;
        },
        15_000,
      );
      expect(done).toMatchObject({ organizationId: "org-after-outage" });
      expect(repeated).toBe(1);

      // One line when the database went and one when it came back, per loop and process; no errors.
      // (Each worker's readiness says that the database is back on its next probe: probed until it has.)
      await until(
        "each loop that said the database is gone to say it is back",
        async () => {
          await call("GET", "/readyz");
          const lines = linesOf(serve, logFrom);
          const back = linesByWork(lines, BACK);
          return [...linesByWork(lines, GONE).keys()].every((key) => back.has(key));
        },
        15_000,
      );
      const lines = linesOf(serve, logFrom);
      const gone = linesByWork(lines, GONE);
      const back = linesByWork(lines, BACK);
      expect(
        LOOPS.filter((work) => ![...gone.keys()].some((key) => key.endsWith(` ${work}`))),
        "loops that did not say the database is gone",
      ).toEqual([]);
      expect(
        [...gone].filter(([, n]) => n !== 1),
        "more than one line saying the database is gone",
      ).toEqual([]);
      expect(
        [...back].filter(([, n]) => n !== 1),
        "more than one line saying the database is back",
      ).toEqual([]);
      expect([...back.keys()].sort()).toEqual([...gone.keys()].sort());
      expect(lines.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([]);
      expect(await workerPids(call)).toEqual(workers);

      console.log(
        `database stopped: first 503 ${toFirst503} ms after the stop, slowest answer ${slowest} ms, ${refused} answers 503 of ${load.answers.length}; writes succeed ${toRecovery} ms after the start; ${load.acknowledged.length} acknowledged, all stored`,
      );
    }, 90_000);

    it("killed (-9 of the postmaster): answers 503 until crash recovery is done, then serves; nothing acknowledged lost", async () => {
      app.answer = successOf;
      const load = startLoad(call, adminToken);
      await new Promise((r) => setTimeout(r, 1000));
      await cluster.kill();
      const killed = Date.now();
      const probe = await call("GET", `/aps/2/resources/${customer.account}`, { token: customer.token });
      const toFirst503 = Date.now() - killed;
      expect(probe.status, probe.text).toBe(503);
      expect((await call("GET", "/readyz")).status).toBe(503);
      expect((await call("GET", "/healthz")).status).toBe(200);
      await new Promise((r) => setTimeout(r, 2000));

      await cluster.start();
      const started = Date.now();
      const toRecovery = await untilWritesSucceed(started);
      expect(toRecovery).toBeLessThan(RECOVERY_BOUND_MS);
      await new Promise((r) => setTimeout(r, 500));
      await load.stop();
      expect(cluster.log(100_000)).toMatch(/not properly shut down|automatic recovery/);
      expect(await workerPids(call)).toEqual(workers);

      const { refused, slowest } = checkAnswers(load.answers);
      await expectAllStored(load.acknowledged);
      console.log(
        `postmaster killed: first 503 ${toFirst503} ms after the kill, slowest answer ${slowest} ms, ${refused} answers 503 of ${load.answers.length}; writes succeed ${toRecovery} ms after the start (crash recovery); ${load.acknowledged.length} acknowledged, all stored`,
      );
    }, 90_000);

    it("provisionings waiting at the application when the database stops leave nothing there that the controller does not know", async () => {
      // The application creates at once and answers 700 ms later: the stop comes while calls wait in that window.
      let waiting = 0;
      const ids = new Set<string>();
      app.answer = (c) => {
        // (An async repeat is another test's provisioning.)
        if (!(c.method === "POST" && c.path === "/tenants" && c.headers["aps-request-phase"] !== "async"))
          return successOf(c);
        // A provisioning POST always carries the resource.
        ids.add((c.body!.aps as { id: string }).id);
        waiting++;
        setTimeout(() => waiting--, 700);
        return { status: 201, body: {}, delayMs: 700 };
      };
      const statuses: number[] = [];
      const acknowledged: string[] = [];
      const burst = Array.from({ length: 10 }, () =>
        call("POST", "/aps/2/resources", { token: customer.token, body: tenantBody() }).then((r) => {
          statuses.push(r.status);
          if (r.status === 201) acknowledged.push(r.json.aps.id as string);
        }),
      );
      await until("provisionings to wait at the application", () => waiting >= 5, 10_000);
      await cluster.stop();
      await Promise.all(burst);
      expect(
        statuses.filter((s) => s !== 201 && s !== 503),
        `statuses: ${statuses.join(", ")}`,
      ).toEqual([]);
      expect(statuses.filter((s) => s === 503).length, "no provisioning was cut short by the outage").toBeGreaterThan(
        0,
      );

      await cluster.start();
      await untilWritesSucceed(Date.now());
      // Intents left by the outage are settled by the reconciler once their lease (8 s) is over.
      await until(
        "the provisioning intents to be settled",
        async () => (await sql<{ n: number }>("select count(*)::int as n from provisioning_intents"))[0]!.n === 0,
        40_000,
      );

      const known = new Set(
        (await sql<{ id: string }>("select id::text as id from resources where type_id = $1", [`${T}/tenant/1.0`])).map(
          (r) => r.id,
        ),
      );
      const held = app.held.get("tenants") ?? new Set<string>();
      const sent = [...ids];
      expect(sent.length).toBeGreaterThanOrEqual(5);
      expect(
        acknowledged.filter((id) => !known.has(id)),
        "acknowledged provisionings lost",
      ).toEqual([]);
      expect(
        sent.filter((id) => held.has(id) && !known.has(id)),
        "resources at the application the controller does not know",
      ).toEqual([]);
      expect(
        sent.filter((id) => known.has(id) && !held.has(id)),
        "resources the application does not hold",
      ).toEqual([]);
      expect(
        sent.filter((id) => (app.created.get(id) ?? 0) > 1),
        "resources created twice",
      ).toEqual([]);
      expect(await workerPids(call)).toEqual(workers);
    }, 90_000);
  },
);
