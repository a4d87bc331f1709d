import { X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, request, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ensureControllerTls,
  issueInstanceCredentials,
  type KeyPairPem,
} from "../../runtime/common/certificate-authority.ts";
import { type Haproxy, haproxySkipReason, startHaproxy } from "../helpers/haproxy.ts";
import { type PgReplica, pgReplicaSkipReason, startPgReplica } from "../helpers/pg-replica.ts";
import { scratchDatabase, type ScratchDatabase } from "../helpers/scratch-database.ts";
import { until } from "../helpers/until.ts";

/**
 * The parts the multi-node suites stand on, proved on their own: a streaming replica of the
 * test PostgreSQL (helpers/pg-replica.ts) and HAProxy passing TLS through to several HTTPS
 * backends and checking their readiness (helpers/haproxy.ts). Each part skips, and says why in
 * its name, where the machine cannot provide it.
 */

const replicaSkip = await pgReplicaSkipReason();
const haproxySkip = haproxySkipReason();

describe.skipIf(replicaSkip)(
  `a streaming replica of the test PostgreSQL${replicaSkip ? ` (skipped: ${replicaSkip})` : ""}`,
  () => {
    let replica: PgReplica;
    let scratch: ScratchDatabase;
    let onPrimary: postgres.Sql;
    let onReplica: postgres.Sql;

    beforeAll(async () => {
      replica = await startPgReplica();
      // Made after the copy: the database itself reaches the replica through the WAL stream.
      scratch = await scratchDatabase("replica");
      onPrimary = postgres(scratch.url, { max: 1, onnotice: () => {} });
      onReplica = postgres(Object.assign(new URL(scratch.url), { port: String(replica.port) }).toString(), {
        max: 1,
        onnotice: () => {},
      });
      await onPrimary`create table notes (id int primary key, body text not null)`;
    });

    afterAll(async () => {
      await onReplica?.end({ timeout: 1 });
      await onPrimary?.end({ timeout: 1 });
      await replica?.stop();
      await scratch?.drop();
    });

    it("is a standby: in recovery, on its own port", async () => {
      expect(replica.port).not.toBe(Number(new URL(process.env.DATABASE_URL!).port || 5432));
      await replica.waitForReplay();
      const [row] = await onReplica`select pg_is_in_recovery() as recovering, current_setting('port')::int as port`;
      expect(row).toEqual({ recovering: true, port: replica.port });
    });

    it("shows a row written on the primary, once it has replayed it", async () => {
      await onPrimary`insert into notes values (1, 'written on the primary')`;
      const rows = await until(
        "the row on the replica",
        async () => {
          const found = await onReplica`select id, body from notes`;
          return found.length > 0 ? found : undefined;
        },
        10_000,
      );
      expect(rows.map((r) => ({ ...r }))).toEqual([{ id: 1, body: "written on the primary" }]);
    });

    it("refuses writes: a read-only transaction error", async () => {
      await replica.waitForReplay();
      const error = await onReplica`insert into notes values (2, 'written on the replica')`.then(
        () => undefined,
        (e: unknown) => e as { code?: string; message?: string },
      );
      expect(error?.code).toBe("25006"); // read_only_sql_transaction
      expect(error?.message).toMatch(/read-only transaction/);
      expect(await onPrimary`select count(*)::int as n from notes`).toEqual([{ n: 1 }]);
    });

    it("reports its replay position and lag, streaming through its slot", async () => {
      const before = await replica.replayLsn();
      await onPrimary`insert into notes values (3, 'moves the replay position')`;
      await replica.waitForReplay();
      const [moved] = await onReplica`select pg_last_wal_replay_lsn() > ${before}::pg_lsn as moved`;
      expect(moved!.moved).toBe(true);
      // The replica reports its replay position to the primary once a second.
      const lag = await until(
        "the replica's first report to the primary",
        async () => {
          const l = await replica.lag();
          return l.replayLsn !== null ? l : undefined;
        },
        5_000,
      );
      expect(lag.state).toBe("streaming");
      expect(lag.bytes).toBeGreaterThanOrEqual(0);
      const slots =
        await onPrimary`select active, slot_type from pg_replication_slots where slot_name = ${replica.slot}`;
      expect(slots.map((s) => ({ ...s }))).toEqual([{ active: true, slot_type: "physical" }]);
    });

    it("stop() leaves no server, slot or directory behind", async () => {
      const { dataDirectory, slot, url } = replica;
      await onReplica.end({ timeout: 1 });
      await replica.stop();
      expect(existsSync(dataDirectory)).toBe(false);
      expect(await onPrimary`select slot_name from pg_replication_slots where slot_name = ${slot}`).toHaveLength(0);
      const probe = postgres(url, { max: 1, connect_timeout: 2 });
      await expect(probe`select 1`).rejects.toThrow(/ECONNREFUSED|connect/);
      await probe.end({ timeout: 1 });
    });
  },
);

/** One of the HTTPS servers behind HAProxy: its own certificate, /readyz answering `ready`, /whoami telling who called. */
interface Backend {
  readonly name: string;
  readonly port: number;
  /** The SHA-256 fingerprint of its server certificate, as a client sees it. */
  readonly fingerprint: string;
  ready: number;
  readonly server: Server;
}

async function startBackend(name: string, identity: KeyPairPem, clientCa: string): Promise<Backend> {
  const backend = {
    name,
    port: 0,
    fingerprint: new X509Certificate(identity.cert).fingerprint256,
    ready: 200,
  } as Backend & { port: number; server: Server };
  // Asks for a client certificate without requiring one: HAProxy's health checks come without.
  backend.server = createServer(
    { cert: identity.cert, key: identity.key, ca: clientCa, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      if (req.url === "/readyz") {
        res.writeHead(backend.ready).end();
        return;
      }
      const socket = req.socket as TLSSocket;
      const peer = socket.getPeerCertificate();
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ backend: name, clientCn: peer?.subject?.CN ?? null, authorized: socket.authorized }));
    },
  );
  await new Promise<void>((ready) => backend.server.listen(0, "127.0.0.1", ready));
  backend.port = (backend.server.address() as AddressInfo).port;
  return backend;
}

interface Reply {
  readonly status: number;
  readonly body: { backend: string; clientCn: string | null; authorized: boolean };
  /** The certificate fingerprint of the server the client's TLS session was with. */
  readonly peerFingerprint: string;
}

/** A GET on a new connection (HAProxy balances connections, not requests). */
function get(port: number, path: string, ca: string[], client?: KeyPairPem): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, ca, agent: false, ...(client ? { cert: client.cert, key: client.key } : {}) },
      (res) => {
        const peerFingerprint = (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
            peerFingerprint,
          }),
        );
      },
    );
    req.setTimeout(5_000, () => req.destroy(new Error("no answer in 5 s")));
    req.on("error", reject);
    req.end();
  });
}

describe.skipIf(haproxySkip)(
  `HAProxy in front of two HTTPS backends${haproxySkip ? ` (skipped: ${haproxySkip})` : ""}`,
  () => {
    let folder: string;
    let proxy: Haproxy;
    let a: Backend;
    let b: Backend;
    let trusted: string[];
    let instance: KeyPairPem;

    beforeAll(async () => {
      folder = mkdtempSync(join(tmpdir(), "multi-node-infra-"));
      // Two certificate authorities, one per backend: the certificate a client sees says which backend it reached.
      const tlsA = await ensureControllerTls(join(folder, "a"), ["127.0.0.1"]);
      const tlsB = await ensureControllerTls(join(folder, "b"), ["127.0.0.1"]);
      trusted = [tlsA.ca.cert, tlsB.ca.cert];
      instance = await issueInstanceCredentials(tlsA.ca, "instance-1");
      a = await startBackend("a", tlsA.server, tlsA.ca.cert);
      b = await startBackend("b", tlsB.server, tlsA.ca.cert);
      proxy = await startHaproxy({
        backends: [
          { name: "a", host: "127.0.0.1", port: a.port },
          { name: "b", host: "127.0.0.1", port: b.port },
        ],
        balance: "roundrobin",
      });
    });

    afterAll(async () => {
      await proxy?.stop();
      for (const backend of [a, b]) if (backend) await new Promise<void>((done) => backend.server.close(() => done()));
      if (folder) rmSync(folder, { recursive: true, force: true });
    });

    it("checks /readyz over TLS: both backends up", async () => {
      const states = await proxy.backendStates();
      expect(states.map((s) => [s.name, s.status, s.checkStatus, s.checkCode])).toEqual([
        ["a", "UP", "L7OK", "200"],
        ["b", "UP", "L7OK", "200"],
      ]);
    });

    it("passes TLS through: each connection's TLS session is with a backend, in turn", async () => {
      const replies = [];
      for (let i = 0; i < 4; i++) replies.push(await get(proxy.port, "/whoami", trusted));
      for (const reply of replies) {
        expect(reply.status).toBe(200);
        // The certificate the client verified is the backend's own: HAProxy terminated nothing.
        expect(reply.peerFingerprint).toBe((reply.body.backend === "a" ? a : b).fingerprint);
      }
      const served = replies.map((r) => r.body.backend);
      expect(served.filter((n) => n === "a")).toHaveLength(2);
      expect(served.filter((n) => n === "b")).toHaveLength(2);
      expect(served[0]).not.toBe(served[1]);
    });

    it("passes the client certificate through to the backend (mutual TLS), and its absence too", async () => {
      const withCertificate = await get(proxy.port, "/whoami", trusted, instance);
      expect(withCertificate.body).toMatchObject({ clientCn: "instance-1", authorized: true });
      const without = await get(proxy.port, "/whoami", trusted);
      expect(without.body).toMatchObject({ clientCn: null, authorized: false });
    });

    it("takes a backend out while its /readyz answers 503, and back in when it answers 200", async () => {
      b.ready = 503;
      const down = await proxy.waitForBackend("b", "DOWN");
      expect(down).toMatchObject({ checkStatus: "L7STS", checkCode: "503" });
      const served = [];
      for (let i = 0; i < 4; i++) served.push((await get(proxy.port, "/whoami", trusted)).body.backend);
      expect(served).toEqual(["a", "a", "a", "a"]);

      b.ready = 200;
      await proxy.waitForBackend("b", "UP");
      const after = [];
      for (let i = 0; i < 4; i++) after.push((await get(proxy.port, "/whoami", trusted)).body.backend);
      expect(after).toContain("b");
    });

    it("has nowhere to send a connection when every backend is out", async () => {
      a.ready = 503;
      b.ready = 503;
      try {
        await proxy.waitForBackend("a", "DOWN");
        await proxy.waitForBackend("b", "DOWN");
        await expect(get(proxy.port, "/whoami", trusted)).rejects.toThrow(/socket|ECONNRESET|disconnected/i);
      } finally {
        a.ready = 200;
        b.ready = 200;
      }
    });
  },
);
