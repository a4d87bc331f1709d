/**
 * Reads from a streaming replica (runtime/controller/store/replica-reads.ts), against a real
 * replica of the test PostgreSQL (helpers/pg-replica.ts): controllers started with
 * `readDatabaseUrls` serve GETs, links and lists from it (counted in /metrics), a read right
 * after a write sees the write whichever controller made it, also with the replica held back
 * by `recovery_min_apply_delay` (and without the fence the same reads miss it: the test can
 * fail), a replica that stops is skipped without failing a request and used again once back,
 * and a replica further behind than the lag bound is skipped until it catches up.
 *
 * The controllers run in this process (each with its own pools, fences and polls: separate
 * nodes as far as the databases can tell); the last part starts `aps-gen serve
 * --read-database-url` as two processes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startController, type ControllerOptions, type RunningController } from "../../runtime/controller/serve.ts";
import { controllerModel } from "../helpers/controller-model.ts";
import { runCli, withoutDatabaseUrl } from "../helpers/cli-run.ts";
import { httpsClient } from "../helpers/https-client.ts";
import { repoRoot } from "../helpers/paths.ts";
import { type PgReplica, pgReplicaSkipReason, startPgReplica } from "../helpers/pg-replica.ts";
import { scratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { until } from "../helpers/until.ts";

const NOTE = "http://notes.example/types/note/1.0";
const TOPIC = "http://notes.example/types/topic/1.0";

const replicaSkip = await pgReplicaSkipReason();

/** A controller of the suite, called in process with the provider's token. */
interface Node {
  readonly controller: RunningController;
  readonly logFile: string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
}

/** `aps_reads_total` by target ("primary" or the replica's host:port). */
async function readsBy(node: Node): Promise<Record<string, number>> {
  const metric = node.controller.metrics.registry.getSingleMetric("aps_reads_total");
  const values = (await metric!.get()).values;
  return Object.fromEntries(values.map((v) => [String(v.labels.target), v.value]));
}

/** The log lines of `node` from byte `from` on that say `text`. */
function logLines(node: Node, text: string, from = 0): string[] {
  return readFileSync(node.logFile, "utf8")
    .slice(from)
    .split("\n")
    .filter((l) => l.includes(text));
}

describe.skipIf(replicaSkip)(`reads from a streaming replica${replicaSkip ? ` (skipped: ${replicaSkip})` : ""}`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), "aps-replica-reads-"));
  let replica: PgReplica;
  let scratch: ScratchDatabase;
  let replicaUrl: string;
  let replicaName: string;
  let token: string;
  const nodes: RunningController[] = [];
  /** Two controllers with the fence, on the same primary and replica. */
  let a: Node;
  let b: Node;

  async function node(name: string, options: Partial<ControllerOptions> = {}): Promise<Node> {
    const logFile = join(dataDir, `${name}.log`);
    const controller = await startController({
      ...(await controllerModel(["test/fixtures/controller/notes"])),
      host: "127.0.0.1",
      port: 0,
      dataDir,
      databaseUrl: scratch.url,
      readDatabaseUrls: [replicaUrl],
      logger: pino({ level: "info" }, pino.destination({ dest: logFile, sync: true, append: true })),
      ...options,
    });
    nodes.push(controller);
    token ??= readFileSync(controller.provider.adminTokenPath, "utf8").trim();
    return {
      controller,
      logFile,
      async call(method, path, body) {
        const response = await controller.request(new URL(path, controller.url), {
          method,
          headers: { "aps-token": token, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        return { status: response.status, json: text ? JSON.parse(text) : undefined };
      },
    };
  }

  /** The replica's state as `node`'s /readyz reports it. */
  async function replicaState(n: Node): Promise<string> {
    const ready = await n.call("GET", "/readyz");
    return ready.json.replicas.find((r: { replica: string }) => r.replica === replicaName)?.state;
  }

  const newNote = async (n: Node, title: string) => {
    const created = await n.call("POST", "/aps/2/resources", { aps: { type: NOTE }, title });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    return created.json.aps.id as string;
  };

  /**
   * `pairs` times: a write on one node, then at once a read on the other (alternating), the read
   * checked for the write: a configure read back by GET, and every fifth time a new note looked
   * for by a list. Returns the reads that missed their write.
   */
  async function writeThenRead(writers: readonly Node[], readers: readonly Node[], pairs: number): Promise<string[]> {
    const id = await newNote(writers[0]!, "v-start");
    const missed: string[] = [];
    for (let i = 0; i < pairs; i++) {
      const writer = writers[i % writers.length]!;
      const reader = readers[(i + 1) % readers.length]!;
      if (i % 5 === 4) {
        const title = `n${i}-${Math.random().toString(36).slice(2, 8)}`;
        await newNote(writer, title);
        const listed = await reader.call(
          "GET",
          `/aps/2/resources?implementing(${encodeURIComponent(NOTE)}),eq(title,${title})`,
        );
        expect(listed.status).toBe(200);
        if (listed.json.length !== 1) missed.push(`list ${i}: ${listed.json.length} notes titled ${title}`);
      } else {
        const configured = await writer.call("PUT", `/aps/2/resources/${id}`, { title: `v${i}` });
        expect(configured.status, JSON.stringify(configured.json)).toBe(200);
        const read = await reader.call("GET", `/aps/2/resources/${id}`);
        // 404: the note itself is not there yet.
        expect([200, 404]).toContain(read.status);
        if (read.json.title !== `v${i}`)
          missed.push(`get ${i}: ${read.status === 404 ? "404" : read.json.title} instead of v${i}`);
      }
    }
    return missed;
  }

  beforeAll(async () => {
    replica = await startPgReplica();
    // Made after the copy: the database reaches the replica through the WAL stream, as every write does.
    scratch = await scratchDatabase("replica_reads");
    replicaUrl = Object.assign(new URL(scratch.url), { port: String(replica.port) }).toString();
    replicaName = `127.0.0.1:${replica.port}`;
    a = await node("a");
    b = await node("b");
    await replica.waitForReplay();
    for (const n of [a, b])
      await until("the replica to be usable", async () => (await replicaState(n)) === "up", 15_000);
  }, 90_000);

  afterAll(async () => {
    for (const c of nodes) await c.close().catch(() => {});
    await replica?.stop();
    await scratch?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("serves a resource, its links, a relation and lists from the replica once it has replayed them, and counts them", async () => {
    const note = await newNote(a, "on the replica");
    const topic = (await a.call("POST", "/aps/2/resources", { aps: { type: TOPIC }, name: "replicated" })).json.aps
      .id as string;
    expect((await a.call("POST", `/aps/2/resources/${note}/topic`, { aps: { id: topic } })).status).toBe(200);
    await replica.waitForReplay();
    const reads: Record<string, (n: Node) => Promise<void>> = {
      "GET of a resource": async (n) =>
        expect((await n.call("GET", `/aps/2/resources/${note}`)).json.title).toBe("on the replica"),
      "a list": async (n) =>
        expect(
          (
            await n.call(
              "GET",
              `/aps/2/resources?implementing(${encodeURIComponent(NOTE)}),eq(title,on%20the%20replica)`,
            )
          ).json.map((r: { aps: { id: string } }) => r.aps.id),
        ).toEqual([note]),
      "a relation's listing": async (n) =>
        expect(
          (await n.call("GET", `/aps/2/resources/${note}/topic`)).json.map((r: { aps: { id: string } }) => r.aps.id),
        ).toEqual([topic]),
      "aps/links": async (n) =>
        expect(
          (await n.call("GET", `/aps/2/resources/${note}/aps/links`)).json.map((l: { id: string }) => l.id),
        ).toContain(topic),
      "a 404": async (n) =>
        expect((await n.call("GET", "/aps/2/resources/0d3e1a52-0000-4000-8000-00000000beef")).status).toBe(404),
    };
    for (const n of [a, b]) {
      for (const [what, read] of Object.entries(reads)) {
        // Other suites write to the same PostgreSQL cluster, and their WAL moves the fence too:
        // a read may find the replica a moment behind and go to the primary. Each kind of read
        // must be served by the replica at least once.
        await until(
          `${what} served by the replica`,
          async () => {
            const before = (await readsBy(n))[replicaName] ?? 0;
            await read(n);
            return ((await readsBy(n))[replicaName] ?? 0) === before + 1;
          },
          10_000,
        );
      }
    }
    // Writes went to the primary: the note's configure is a write, its answer read there too.
    const countsBefore = await readsBy(a);
    expect((await a.call("PUT", `/aps/2/resources/${note}`, { title: "configured" })).json.title).toBe("configured");
    expect(await readsBy(a)).toEqual(countsBefore);
    const fences = await a.controller.metrics.registry.getSingleMetric("aps_read_fences_total")!.get();
    expect(fences.values[0]!.value).toBeGreaterThan(0);
  });

  it("reads every write acknowledged before the read, on either controller, with the replica 150 ms behind; without the fence the same reads miss them", async () => {
    await replica.configure("recovery_min_apply_delay", "150ms");
    try {
      const before = [await readsBy(a), await readsBy(b)];
      const missed = await writeThenRead([a, b], [a, b], 200);
      expect(missed).toEqual([]);
      // The fence sent them to the primary: the replica had not replayed the writes. (A read the
      // machine's load held back past the delay may find the replica caught up, and rightly read it.)
      const after = [await readsBy(a), await readsBy(b)];
      const onPrimary = after.reduce((sum, counts, i) => sum + (counts.primary ?? 0) - (before[i]!.primary ?? 0), 0);
      expect(onPrimary).toBeGreaterThan(150);

      // A controller that reads without the fence (tests only) reads the replica as it is: with
      // each commit replayed a second late, nearly every read right after a write misses it.
      await replica.configure("recovery_min_apply_delay", "1s");
      const unfenced = await node("unfenced", { readFence: false });
      await until("the replica to be usable", async () => (await replicaState(unfenced)) === "up", 15_000);
      const stale = await writeThenRead([a], [unfenced], 20);
      expect(stale.length).toBeGreaterThan(10);
      await unfenced.controller.close();
    } finally {
      await replica.configure("recovery_min_apply_delay", "0");
    }
  }, 60_000);

  it("skips a replica that stops, failing no request, says so once, and reads from it again once it is back", async () => {
    const note = await newNote(a, "while the replica is away");
    await replica.waitForReplay();
    const logFrom = readFileSync(a.logFile, "utf8").length;
    await replica.halt();
    try {
      // Known before any read: the poll connection closed with the server, or a poll failed
      // meanwhile. Its polled position is forgotten (a restarted replica may start at an earlier one).
      for (const n of [a, b]) {
        const ready = await n.call("GET", "/readyz");
        expect(ready.json.replicas[0]).toMatchObject({
          state: "down",
          replayed: null,
          reason: expect.stringMatching(/^unreachable: /),
        });
      }
      const before = await readsBy(a);
      for (let i = 0; i < 30; i++) {
        const [got, listed] = await Promise.all([
          a.call("GET", `/aps/2/resources/${note}`),
          a.call("GET", `/aps/2/resources?implementing(${encodeURIComponent(NOTE)}),limit(0,5)`),
        ]);
        expect(got.status).toBe(200);
        expect(got.json.title).toBe("while the replica is away");
        expect(listed.status).toBe(200);
      }
      const after = await readsBy(a);
      expect(after.primary! - (before.primary ?? 0)).toBeGreaterThanOrEqual(60);
      expect(await replicaState(a)).toBe("down");
      // Still ready: the primary is enough.
      expect((await a.call("GET", "/readyz")).status).toBe(200);
      expect(logLines(a, `read replica ${replicaName} skipped`, logFrom)).toHaveLength(1);
    } finally {
      await replica.resume();
    }
    await until("the replica back", async () => (await replicaState(a)) === "up", 15_000);
    await until(
      "a GET served by the replica again",
      async () => {
        const before = (await readsBy(a))[replicaName] ?? 0;
        expect((await a.call("GET", `/aps/2/resources/${note}`)).status).toBe(200);
        return ((await readsBy(a))[replicaName] ?? 0) > before;
      },
      10_000,
    );
    expect(logLines(a, `read replica ${replicaName} is back`, logFrom)).toHaveLength(1);
    expect(logLines(a, `read replica ${replicaName} skipped`, logFrom)).toHaveLength(1);
  }, 60_000);

  it("skips a replica further behind than --read-max-lag while reads flow, and uses it again once it has caught up", async () => {
    const id = await newNote(a, "lagging");
    const logFrom = readFileSync(a.logFile, "utf8").length;
    // Each commit replayed 1.5 s after it was made: past the 1 s bound as soon as writes keep coming.
    await replica.configure("recovery_min_apply_delay", "1500ms");
    try {
      let i = 0;
      await until(
        "the replica to be skipped as lagging",
        async () => {
          expect((await a.call("PUT", `/aps/2/resources/${id}`, { title: `lag ${i++}` })).status).toBe(200);
          expect((await a.call("GET", `/aps/2/resources/${id}`)).json.title).toBe(`lag ${i - 1}`);
          return (await replicaState(a)) === "lagging";
        },
        15_000,
      );
      const ready = await a.call("GET", "/readyz");
      expect(ready.status).toBe(200);
      expect(ready.json.replicas[0]).toMatchObject({ replica: replicaName, state: "lagging" });
      expect(ready.json.replicas[0].lagSeconds).toBeGreaterThan(1);
      expect(logLines(a, `read replica ${replicaName} skipped (`, logFrom).join("\n")).toMatch(
        /s behind the primary, over the bound of 1 s/,
      );
    } finally {
      await replica.configure("recovery_min_apply_delay", "0");
    }
    await until(
      "the replica back within the bound",
      async () => {
        await a.call("GET", `/aps/2/resources/${id}`);
        return (await replicaState(a)) === "up";
      },
      15_000,
    );
    expect(logLines(a, `read replica ${replicaName} is back`, logFrom)).toHaveLength(1);
  }, 60_000);

  describe("aps-gen serve --read-database-url, two processes", () => {
    const children: ChildProcess[] = [];
    afterAll(() => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    });

    /** `aps-gen serve` from the sources, on its own data folder with the deployment's keys shared through the data folder of the in-process nodes. */
    function serve(): Promise<string> {
      const child = spawn(
        process.execPath,
        [
          "--liftoff-only",
          join(repoRoot, "bin/aps-gen.js"),
          "serve",
          "--types",
          "test/fixtures/controller/notes",
          "--port",
          "0",
          "--data",
          dataDir,
          "--workers",
          "1",
          "--no-migrate",
          "--database-url",
          scratch.url,
          "--read-database-url",
          replicaUrl,
          "--read-max-lag",
          "2",
        ],
        {
          cwd: repoRoot,
          env: { ...process.env, DATABASE_URL: "", LOG_LEVEL: "warn" },
          stdio: ["ignore", "ignore", "pipe"],
        },
      );
      children.push(child);
      let err = "";
      return new Promise((resolve, reject) => {
        child.stderr!.on("data", (d: Buffer) => {
          err += String(d);
          const m = err.match(/controller on (https:\/\/\S+)/);
          if (m && err.includes("admin token in")) resolve(m[1]!);
        });
        child.on("exit", (code) => reject(new Error(`serve ended (${code}): ${err}`)));
      });
    }

    it("reads each write made through the other process, and serves reads from the replica", async () => {
      const [one, two] = await Promise.all([serve(), serve()]);
      const ca = readFileSync(join(dataDir, "tls/ca.crt"), "utf8");
      const calls = [httpsClient(one, ca), httpsClient(two, ca)];
      const created = await calls[0]!("POST", "/aps/2/resources", {
        token,
        body: { aps: { type: NOTE }, title: "p0" },
      });
      expect(created.status, created.text).toBe(201);
      const id = created.json.aps.id as string;
      for (let i = 1; i <= 40; i++) {
        const writer = calls[i % 2]!;
        const reader = calls[(i + 1) % 2]!;
        expect((await writer("PUT", `/aps/2/resources/${id}`, { token, body: { title: `p${i}` } })).status).toBe(200);
        expect((await reader("GET", `/aps/2/resources/${id}`, { token })).json.title).toBe(`p${i}`);
      }
      for (const call of calls) {
        const ready = await call("GET", "/readyz");
        expect(ready.json.replicas).toEqual([expect.objectContaining({ replica: replicaName, state: "up" })]);
      }
      // Reads with nothing written in between: the replica catches up and answers them.
      await replica.waitForReplay();
      await until(
        "a read served by the replica in a serve process",
        async () => {
          await calls[1]!("GET", `/aps/2/resources/${id}`, { token });
          const metrics = (await calls[1]!("GET", "/metrics")).text;
          return new RegExp(`^aps_reads_total\\{target="${replicaName.replace(/\./g, "\\.")}"\\} [1-9]`, "m").test(
            metrics,
          );
        },
        10_000,
      );
    }, 60_000);
  });
});

describe("aps-gen serve --read-database-url on the embedded database", () => {
  withoutDatabaseUrl();
  it("is refused in one line: replicas need a PostgreSQL primary", async () => {
    const data = mkdtempSync(join(tmpdir(), "aps-replica-refused-"));
    try {
      const r = await runCli([
        "serve",
        "--types",
        "test/fixtures/controller/notes",
        "--data",
        data,
        "--read-database-url",
        "postgres://postgres@127.0.0.1:5433/test",
      ]);
      expect(r.code).toBe(2);
      expect(r.err).toEqual([
        "aps-gen serve: --read-database-url needs a PostgreSQL primary (--database-url): the embedded database has no replicas",
      ]);
      // The same from the environment (the option's variable, as every option has one).
      process.env.APS_GEN_READ_DATABASE_URL =
        "postgres://postgres@127.0.0.1:5433/test,postgres://postgres@127.0.0.1:5434/test";
      try {
        const fromEnv = await runCli(["serve", "--types", "test/fixtures/controller/notes", "--data", data]);
        expect(fromEnv.code).toBe(2);
        expect(fromEnv.err).toEqual(r.err);
      } finally {
        delete process.env.APS_GEN_READ_DATABASE_URL;
      }
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});
