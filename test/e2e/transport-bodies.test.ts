import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/paths.ts";
import { serverConnections } from "../helpers/server-sockets.ts";
import { until } from "../helpers/until.ts";
import { startControllerUnderTest, type ControllerUnderTest } from "./controller-harness.ts";

const NOTE = "http://notes.example/types/note/1.0";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What a client got for one upload: status, headers, body, and any error of the connection. */
interface Upload {
  readonly status: number;
  readonly connection: string | undefined;
  readonly json: any;
  readonly error: string | undefined;
}

/**
 * Issue 28 items 1 and 2: request bodies that come too slowly are cut with a 408, one that comes
 * slowly but steadily is not; a reply the client does not read is dropped; an upload over the
 * limit is answered 413 with `Connection: close`, and the rest of it is read and dropped for a
 * bounded time, so ordinary clients (Node's https, curl, Python) read the 413 instead of a broken pipe.
 * Whether the server let go of a connection is read from its own descriptors (serverConnections),
 * not from what a client sees. The body rate and its grace period are the defaults (240 bytes/s
 * after 5 s), and so is the lingering time; the stall time is short here.
 */
describe("the HTTPS server under slow, oversized and unread bodies", () => {
  let t: ControllerUnderTest;
  let port = 0;
  let folder = "";
  let bigFile = "";
  // Lingering as by default (5 s): the 50 MB uploads below send what follows their 413 within it,
  // which 1.5 s did not always allow on a loaded 2-core machine (Python's urllib saw a reset).
  const timeouts = { writeStallMs: 1_000, lingerMs: 5_000 };
  const open = (options: { allowHalfOpen?: boolean } = {}): Promise<TLSSocket> =>
    new Promise((resolve, reject) => {
      const s = connect({ host: "127.0.0.1", port, ca: t.controller.caCert, servername: "localhost", ...options }, () =>
        resolve(s),
      );
      s.once("error", reject);
    });
  /** Which of `sockets` the server still holds a descriptor for. */
  const heldBy = (sockets: readonly TLSSocket[]) => {
    const held = serverConnections(port);
    return sockets.filter((s) => held.has(s.localPort!));
  };

  beforeAll(async () => {
    // The notes declarations with a 16 MiB package file: a reply far larger than the socket buffers.
    folder = mkdtempSync(join(tmpdir(), "aps-bodies-"));
    mkdirSync(join(folder, "notes"));
    for (const f of ["note.schema", "topic.schema"])
      copyFileSync(join(repoRoot, "test/fixtures/controller/notes", f), join(folder, "notes", f));
    writeFileSync(join(folder, "notes", "big.bin"), Buffer.alloc(16 * 1024 * 1024, 7));
    // A 50 MB upload, sent as a file by curl.
    bigFile = join(folder, "upload.bin");
    writeFileSync(bigFile, Buffer.alloc(50_000_000, 1));
    t = await startControllerUnderTest("pglite", [join(folder, "notes")], { serverTimeouts: timeouts });
    port = t.controller.port;
  }, 60_000);
  afterAll(async () => {
    await t?.dispose();
    rmSync(folder, { recursive: true, force: true });
  });

  /** Posts (or sends with `method`) `total` bytes, chunked unless `declared`, with Node's https client, as an application would. */
  const nodeUpload = (
    path: string,
    total: number,
    options: { contentType: string; declared?: boolean; method?: string },
  ): Promise<Upload> =>
    new Promise((resolve) => {
      let error: string | undefined;
      let reply: Omit<Upload, "error"> | undefined;
      const done = () => reply && resolve({ ...reply, error });
      const req = request(
        `${t.controller.url}${path}`,
        {
          method: options.method ?? "POST",
          ca: t.controller.caCert,
          agent: false,
          headers: {
            "aps-token": t.adminToken,
            "content-type": options.contentType,
            ...(options.declared ? { "content-length": total } : {}),
          },
        },
        (res) => {
          let text = "";
          res.on("data", (d: Buffer) => (text += d));
          res.on("end", () => {
            reply = { status: res.statusCode ?? 0, connection: res.headers.connection, json: JSON.parse(text) };
            // An error of the upload shows on the request just after: give it the time to.
            setTimeout(done, 200);
          });
        },
      );
      req.on("error", (e: NodeJS.ErrnoException) => {
        error = e.code ?? e.message;
        if (!reply) resolve({ status: 0, connection: undefined, json: undefined, error });
      });
      const chunk = Buffer.alloc(64 * 1024, 1);
      let sent = 0;
      const write = () => {
        while (sent < total) {
          const n = Math.min(chunk.length, total - sent);
          sent += n;
          if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void req.once("drain", write);
        }
        req.end();
      };
      write();
    });

  /** Posts a file with curl (`--data-binary @file`, chunked when asked). */
  const curlUpload = (
    path: string,
    file: string,
    options: { contentType: string; chunked?: boolean; method?: string },
  ): Promise<Upload & { exit: number }> =>
    new Promise((resolve) => {
      const args = [
        "-sS",
        ...(options.method ? ["-X", options.method] : []),
        "--cacert",
        join(t.dataDir, "tls/ca.crt"),
        "-H",
        `APS-Token: ${t.adminToken}`,
        "-H",
        `Content-Type: ${options.contentType}`,
        ...(options.chunked ? ["-H", "Transfer-Encoding: chunked"] : []),
        "--data-binary",
        `@${file}`,
        "-D",
        "-",
        `${t.controller.url}${path}`,
      ];
      execFile("curl", args, { maxBuffer: 1024 * 1024 }, (err, stdout, stderr) => {
        // curl asks `Expect: 100-continue` for a large body: the final reply follows the 100.
        const parts = stdout.split("\r\n\r\n");
        const last = parts.findLastIndex((p) => /^HTTP\/\S+ [2-5]\d\d/.test(p));
        const head = parts[last] ?? "";
        const body = parts.slice(last + 1).join("\r\n\r\n");
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        resolve({
          exit: err ? Number((err as { code?: number }).code ?? 1) : 0,
          status: Number(/^HTTP\/\S+ (\d+)/.exec(head)?.[1] ?? 0),
          connection: /^connection: *(\S+)/im.exec(head)?.[1],
          json,
          error: stderr.trim() || undefined,
        });
      });
    });

  /**
   * Posts 50 MB to `path` from Python: urllib (the body declared) and http.client (chunked, from a
   * generator), as scripts send it. Each line says what one of them read.
   */
  const pythonUpload = (path: string): Promise<string[]> =>
    new Promise((resolve) => {
      const script = [
        "import http.client, json, ssl, sys, urllib.request, urllib.error",
        "url, ca, token, path = sys.argv[1:5]",
        "ctx = ssl.create_default_context(cafile=ca)",
        "headers = {'APS-Token': token, 'Content-Type': 'application/zip'}",
        "def say(how, status, connection, body): print(how, status, connection, json.loads(body)['code'])",
        "try:",
        "    urllib.request.urlopen(urllib.request.Request(url + path, data=bytes(50_000_000), headers=headers, method='POST'), context=ctx)",
        "except urllib.error.HTTPError as e: say('urllib', e.code, e.headers.get('connection'), e.read())",
        "except Exception as e: print('urllib', type(e).__name__)",
        "c = http.client.HTTPSConnection(url.split('//')[1].split(':')[0], int(url.rsplit(':', 1)[1]), context=ctx)",
        "try:",
        "    c.request('POST', path, body=(bytes(65536) for _ in range(763)), headers=headers, encode_chunked=True)",
        "    r = c.getresponse(); say('http.client', r.status, r.getheader('connection'), r.read())",
        "except Exception as e: print('http.client', type(e).__name__)",
      ].join("\n");
      execFile(
        "python3",
        ["-c", script, t.controller.url, join(t.dataDir, "tls/ca.crt"), t.adminToken, path],
        (_err, stdout) => resolve(stdout.trim().split("\n")),
      );
    });

  it.concurrent("cuts bodies sent a byte every 2 s within 15 s with a 408 their clients read, and holds none of their connections", async () => {
    const count = 20;
    const clients = await Promise.all(Array.from({ length: count }, () => open({ allowHalfOpen: true })));
    const started = Date.now();
    const answered: (number | undefined)[] = [];
    const drips: NodeJS.Timeout[] = [];
    clients.forEach((s, i) => {
      let text = "";
      s.on("error", () => {});
      s.on("data", (d: Buffer) => {
        text += d.toString("latin1");
        if (answered[i] === undefined && /^HTTP\/1\.1 408 /.test(text) && text.includes('"code":408'))
          answered[i] = Date.now() - started;
      });
      s.write(
        `POST /aps/2/resources HTTP/1.1\r\nHost: localhost\r\nAPS-Token: ${t.adminToken}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n`,
      );
      // It keeps dripping after the 408 too (its sending side stays open): the server must still let go.
      drips.push(setInterval(() => s.writable && s.write("{"), 2_000));
    });
    try {
      await sleep(3_000);
      // Under the grace period every one of them is still being read.
      expect(heldBy(clients)).toHaveLength(count);
      await until(
        "the server to let go of every slow body's connection",
        () => heldBy(clients).length === 0,
        15_000 - (Date.now() - started),
      );
      expect(answered.filter((ms) => ms !== undefined && ms < 15_000)).toHaveLength(count);
    } finally {
      for (const d of drips) clearInterval(d);
      for (const s of clients) s.destroy();
    }
  }, 30_000);

  it.concurrent("takes a body that is slow but steady (1 kB/s for 7 s, longer than the grace period)", async () => {
    const s = await open();
    const body = Buffer.from(
      JSON.stringify({ aps: { type: NOTE }, title: "slow", tags: Array.from({ length: 7 }, () => "x".repeat(1_000)) }),
    );
    let text = "";
    s.on("data", (d: Buffer) => (text += d.toString("latin1")));
    const closed = new Promise((r) => s.once("close", r));
    s.write(
      `POST /aps/2/resources HTTP/1.1\r\nHost: localhost\r\nAPS-Token: ${t.adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    for (let at = 0; at < body.length; at += 100) {
      s.write(body.subarray(at, at + 100));
      await sleep(100);
    }
    await closed;
    expect(text).toMatch(/^HTTP\/1\.1 201 /);
  }, 30_000);

  const bigFilePath = async () => {
    const id = (await t.call("GET", "/aps/2/packages", { token: t.adminToken })).json.find((p: { types: string[] }) =>
      p.types.includes(NOTE),
    ).id as string;
    return `/aps/2/packages/${id}/big.bin`;
  };

  it.concurrent("sends a large reply to a client that reads it slowly but steadily, though one write of it takes longer than the stall time", async () => {
    const path = await bigFilePath();
    const s = await open();
    // About 4 MB/s: the 16 MiB file, one write, takes seconds to go while the stall time is 1 s.
    let got = 0;
    let allowed = 0;
    const meter = setInterval(() => {
      allowed += 400_000;
      if (s.isPaused()) s.resume();
    }, 100);
    s.on("data", (d: Buffer) => {
      got += d.length;
      if (got >= allowed) s.pause();
    });
    const closed = new Promise((r) => s.once("close", r));
    s.on("error", () => {});
    try {
      s.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAPS-Token: ${t.adminToken}\r\nConnection: close\r\n\r\n`);
      await closed;
      expect(got).toBeGreaterThan(16 * 1024 * 1024);
    } finally {
      clearInterval(meter);
    }
  }, 30_000);

  it("keeps the connection of a request without a body, also when its reply is made before Node marks the request complete", async () => {
    // /healthz answers without awaiting anything; a list of types awaits more. The client asks to keep the connection.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    for (const path of ["/healthz", "/aps/2/types"]) {
      const connection = await new Promise<string | undefined>((resolve, reject) => {
        request(
          `${t.controller.url}${path}`,
          { ca: t.controller.caCert, agent, headers: { "aps-token": t.adminToken } },
          (res) => {
            res.resume();
            resolve(res.headers.connection);
          },
        )
          .on("error", reject)
          .end();
      });
      expect(connection, path).not.toBe("close");
    }
    agent.destroy();
  });

  it("answers a 50 MB chunked package upload 413 with Connection: close, read by Node's https client, curl and Python", async () => {
    const node = await nodeUpload("/aps/2/packages", 50_000_000, { contentType: "application/zip" });
    expect(node).toMatchObject({
      status: 413,
      connection: "close",
      json: { code: 413, type: "PayloadTooLarge" },
      error: undefined,
    });
    const curl = await curlUpload("/aps/2/packages", bigFile, { contentType: "application/zip", chunked: true });
    expect(curl).toMatchObject({
      exit: 0,
      status: 413,
      connection: "close",
      json: { code: 413, type: "PayloadTooLarge" },
      error: undefined,
    });
    // Declared too: refused before a byte of it is read, and the rest read and dropped all the same.
    const declared = await curlUpload("/aps/2/packages", bigFile, { contentType: "application/zip" });
    expect(declared).toMatchObject({ exit: 0, status: 413, connection: "close", json: { code: 413 } });
    expect(await pythonUpload("/aps/2/packages")).toEqual(["urllib 413 close 413", "http.client 413 close 413"]);
  }, 30_000);

  it("answers an oversized POST /aps/2/resources 413, chunked or declared, read by Node's https client and by curl", async () => {
    const file = join(folder, "resource.json");
    writeFileSync(file, Buffer.alloc(3_000_000, 0x20));
    for (const declared of [false, true]) {
      const node = await nodeUpload("/aps/2/resources", 3_000_000, { contentType: "application/json", declared });
      expect(node, `declared ${declared}`).toMatchObject({
        status: 413,
        connection: "close",
        json: { code: 413, type: "PayloadTooLarge" },
        error: undefined,
      });
      const curl = await curlUpload("/aps/2/resources", file, { contentType: "application/json", chunked: !declared });
      expect(curl, `declared ${declared}`).toMatchObject({
        exit: 0,
        status: 413,
        connection: "close",
        json: { code: 413 },
        error: undefined,
      });
    }
    // Any reply given before the body arrived closes the connection the same way (here a 415).
    const wrongType = await nodeUpload("/aps/2/resources", 3_000_000, { contentType: "application/zip" });
    expect(wrongType).toMatchObject({ status: 415, connection: "close", error: undefined });
  }, 30_000);

  it("bounds the body of DELETE .../aps/subscriptions like every other body", async () => {
    const note = await t.call("POST", "/aps/2/resources", {
      token: t.adminToken,
      body: { aps: { type: NOTE }, title: "subscribed" },
    });
    expect(note.status, note.text).toBe(201);
    const path = `/aps/2/resources/${note.json.aps.id}/aps/subscriptions`;
    // Node's client sends a DELETE body with its length only (it does not chunk DELETE bodies); curl chunks it.
    expect(
      await nodeUpload(path, 2_000_000, { contentType: "application/json", declared: true, method: "DELETE" }),
    ).toMatchObject({ status: 413, connection: "close", json: { code: 413 } });
    const file = join(folder, "two-megabytes.json");
    writeFileSync(file, Buffer.alloc(2_000_000, 32));
    expect(
      await curlUpload(path, file, { contentType: "application/json", chunked: true, method: "DELETE" }),
    ).toMatchObject({ exit: 0, status: 413, json: { code: 413 } });
  });

  it("reads what follows a 413 only for the lingering time, then closes, whether or not the client stops", async () => {
    const s = await open({ allowHalfOpen: true });
    s.on("error", () => {});
    let text = "";
    s.on("data", (d: Buffer) => (text += d.toString("latin1")));
    s.write(
      `POST /aps/2/resources HTTP/1.1\r\nHost: localhost\r\nAPS-Token: ${t.adminToken}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    // A chunk of 64 KiB every 50 ms, for ever: past the limit within a second, then on and on.
    const chunk = `${(64 * 1024).toString(16)}\r\n${" ".repeat(64 * 1024)}\r\n`;
    const pump = setInterval(() => s.writable && s.write(chunk), 50);
    try {
      const refused = await until("the 413", () => (/^HTTP\/1\.1 413 /.test(text) ? Date.now() : undefined), 10_000);
      expect(text).toMatch(/\r\nconnection: close\r\n/i);
      expect(heldBy([s])).toHaveLength(1);
      await until("the server to close after lingering", () => heldBy([s]).length === 0, timeouts.lingerMs + 3_000);
      expect(Date.now() - refused).toBeGreaterThanOrEqual(timeouts.lingerMs - 300);
    } finally {
      clearInterval(pump);
      s.destroy();
    }
  }, 30_000);

  it("drops replies their clients do not read: the server holds no descriptor for them after the stall time", async () => {
    const path = await bigFilePath();
    const clients = await Promise.all(Array.from({ length: 5 }, () => open()));
    for (const s of clients) {
      s.on("error", () => {});
      // It asks for 16 MiB and reads none of it: what the buffers hold is sent, the rest waits.
      s.pause();
      s.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAPS-Token: ${t.adminToken}\r\n\r\n`);
    }
    try {
      await sleep(timeouts.writeStallMs / 2);
      expect(heldBy(clients)).toHaveLength(clients.length);
      const started = Date.now();
      await until(
        "the server to drop every stalled reply",
        () => heldBy(clients).length === 0,
        timeouts.writeStallMs + 3_000,
      );
      expect(Date.now() - started).toBeLessThan(timeouts.writeStallMs + 3_000);
    } finally {
      for (const s of clients) s.destroy();
    }
  }, 30_000);
});
