import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PgCluster, pgClusterSkipReason, startPgCluster } from "./pg-cluster.ts";
import { pgReplicaSkipReason, startPgReplica } from "./pg-replica.ts";
import { until } from "./until.ts";

/**
 * The private cluster of pg-cluster.ts: its own server that a test may stop, kill and start
 * again, and a primary a streaming replica can be made of. Skipped, with the reason in its
 * name, where the machine cannot run one.
 */
const skip = pgClusterSkipReason();

/** One query on a connection of its own: its rows, or the error's code. */
async function probe(
  url: string,
  query = "select 1 as one",
): Promise<{ rows?: Record<string, unknown>[]; code?: string }> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 3 });
  try {
    return { rows: [...(await sql.unsafe(query))].map((r) => ({ ...r })) };
  } catch (error) {
    return { code: (error as { code?: string }).code ?? (error as Error).message };
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}

describe.skipIf(skip)(`a private PostgreSQL cluster${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let cluster: PgCluster;
  let url: string;

  beforeAll(async () => {
    cluster = await startPgCluster();
    url = await cluster.createDatabase("notes");
    await probe(url, "create table notes (id int primary key, body text not null)");
  });

  afterAll(async () => {
    await cluster?.destroy();
  });

  it("runs on a port of its own, not the shared server's, ready to be a primary", async () => {
    expect(cluster.port).not.toBe(
      Number(new URL(process.env.DATABASE_URL ?? "postgres://x@127.0.0.1:5432/x").port || 5432),
    );
    const { rows } = await probe(
      url,
      "select current_setting('port')::int as port, current_setting('wal_level') as wal_level, current_setting('max_wal_senders')::int > 0 as senders, pg_is_in_recovery() as recovering",
    );
    expect(rows).toEqual([{ port: cluster.port, wal_level: "replica", senders: true, recovering: false }]);
  });

  it("refuses connections once stopped, and keeps what was committed when started again", async () => {
    expect((await probe(url, "insert into notes values (1, 'before the stop')")).code).toBeUndefined();
    await cluster.stop();
    expect(cluster.running).toBe(false);
    expect((await probe(url)).code).toBe("ECONNREFUSED");
    await cluster.start();
    expect((await probe(url, "select body from notes")).rows).toEqual([{ body: "before the stop" }]);
  });

  it("ends open sessions on a fast stop: a query in flight fails", async () => {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await sql`select 1`;
      const idle = sql`select pg_sleep(30)`.then(
        () => undefined,
        (e: { code?: string }) => e.code,
      );
      await new Promise((r) => setTimeout(r, 200));
      await cluster.stop();
      // The server sends admin_shutdown (57P01) and closes; postgres.js rejects the query in
      // flight with its own CONNECTION_CLOSED (it keeps the server's error only when none is).
      expect(await idle).toMatch(/^(57P01|CONNECTION_CLOSED)$/);
    } finally {
      await sql.end({ timeout: 1 }).catch(() => {});
      await cluster.start();
    }
  });

  it("comes back from kill -9 of its postmaster by crash recovery, with what was committed", async () => {
    expect((await probe(url, "insert into notes values (2, 'before the kill')")).code).toBeUndefined();
    const pid = cluster.postmasterPid()!;
    await cluster.kill();
    expect(() => process.kill(pid, 0)).toThrow();
    expect((await probe(url)).code).toBe("ECONNREFUSED");
    await cluster.start();
    expect((await probe(url, "select body from notes order by id")).rows).toEqual([
      { body: "before the stop" },
      { body: "before the kill" },
    ]);
    expect(cluster.log(200)).toMatch(/database system was interrupted|not properly shut down|automatic recovery/);
  });

  it("can have a streaming replica made of it", async () => {
    const reason = await pgReplicaSkipReason({ primaryUrl: cluster.url() });
    expect(reason).toBeUndefined();
    const replica = await startPgReplica({ primaryUrl: cluster.url() });
    try {
      expect(replica.port).not.toBe(cluster.port);
      await probe(url, "insert into notes values (3, 'streamed')");
      const onReplica = Object.assign(new URL(url), { port: String(replica.port) }).toString();
      const rows = await until(
        "the row on the replica",
        async () => {
          const r = await probe(onReplica, "select body from notes where id = 3");
          return r.rows?.length ? r.rows : undefined;
        },
        10_000,
      );
      expect(rows).toEqual([{ body: "streamed" }]);
      expect((await probe(onReplica, "select pg_is_in_recovery() as recovering")).rows).toEqual([{ recovering: true }]);
    } finally {
      await replica.stop();
    }
  });

  it("is stopped and removed by a test process's exit, and a dead process's cluster by the next start", async () => {
    // A child test process makes a cluster and is killed before it cleans up.
    const script = `
      import { startPgCluster } from ${JSON.stringify(new URL("./pg-cluster.ts", import.meta.url).pathname)};
      const c = await startPgCluster();
      console.log(JSON.stringify({ dir: c.dataDirectory, pid: c.postmasterPid() }));
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += String(d);
        if (out.includes("\n")) resolve(out.trim());
      });
      child.once("exit", (code) => reject(new Error(`the child ended (${code}) before it made a cluster`)));
    });
    const { dir, pid } = JSON.parse(line) as { dir: string; pid: number };
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    expect(existsSync(dir)).toBe(true);
    expect(() => process.kill(pid, 0)).not.toThrow();
    const next = await startPgCluster();
    try {
      expect(existsSync(dir)).toBe(false);
      await until(
        "the abandoned postmaster to end",
        () => {
          try {
            process.kill(pid, 0);
            return false;
          } catch {
            return true;
          }
        },
        10_000,
      );
    } finally {
      await next.destroy();
    }
    expect(existsSync(next.dataDirectory)).toBe(false);
  });
});
