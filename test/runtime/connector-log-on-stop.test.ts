import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureControllerTls } from "../../runtime/common/certificate-authority.ts";
import { repoRoot } from "../helpers/paths.ts";

/**
 * The connector's default logger writes standard output in blocks, asynchronously
 * (runtime/common/block-written-stdout.ts): a few calls' lines are far less than a block and
 * wait up to 200 ms. None of them may be lost when the connector stops right after answering:
 * killed by SIGTERM with no handler of its own, stopped by a signal handler that calls close()
 * (the `aps-gen init` scaffold), or closed and ending normally. Each case runs the connector in
 * a process of its own and reads that process's standard output.
 */
describe("the connector's request lines when it stops right after answering", () => {
  const dir = mkdtempSync(join(tmpdir(), "aps-connector-stop-"));
  let ca = "";

  beforeAll(async () => {
    // The connector finds these and keeps its HTTPS identity; the test trusts its CA.
    ca = (await ensureControllerTls(join(dir, "tls"), ["127.0.0.1"])).ca.cert;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Starts the fixture, makes `calls` provisioning calls over one kept-alive connection, stops it with `stop`, and returns its output and how it ended. */
  async function serveThenStop(how: string, calls: number, stop: (child: ReturnType<typeof spawn>) => void) {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        join(repoRoot, "test/fixtures/endpoints/logging-connector.ts"),
        join(dir, "tls"),
        join(dir, `credentials-${how}`),
        how,
      ],
      { cwd: repoRoot, stdio: ["pipe", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("exit", (code, signal) => resolve({ code, signal })),
    );
    const port = await new Promise<number>((resolve, reject) => {
      child.stderr!.on("data", (d: Buffer) => {
        stderr += d.toString();
        const ready = /ready (\d+)/.exec(stderr);
        if (ready) resolve(Number(ready[1]));
      });
      void ended.then(({ code }) => reject(new Error(`the connector exited with ${code}: ${stderr}`)));
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const ids: string[] = [];
    try {
      for (let i = 0; i < calls; i++) {
        const id = `stop-${how}-${i}`;
        const status = await post(port, agent, id);
        expect(status).toBe(200);
        ids.push(id);
      }
      stop(child);
      const end = await ended;
      return { ids, end, stdout, stderr };
    } finally {
      agent.destroy();
      child.kill("SIGKILL");
    }
  }

  function post(port: number, agent: Agent, requestId: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const body = JSON.stringify({ aps: { type: "http://example.com/item/1.0", id: requestId } });
      const req = request(
        {
          host: "127.0.0.1",
          port,
          path: "/items",
          method: "POST",
          ca,
          agent,
          headers: { "content-type": "application/json", "x-request-id": requestId, "aps-instance-id": "i-1" },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }

  const linesOf = (stdout: string) =>
    stdout
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as { msg: string; requestId?: string; path?: string; status?: number });
  const requestLines = (stdout: string) => linesOf(stdout).filter((l) => l.msg === "request");

  it("a SIGTERM with no handler of the connector's own: every line is written, and the process still ends as SIGTERM ends it", async () => {
    const { ids, end, stdout } = await serveThenStop("no-handler", 5, (child) => child.kill("SIGTERM"));
    expect(requestLines(stdout).map((l) => [l.requestId, l.path, l.status])).toEqual(
      ids.map((id) => [id, "/items", 200]),
    );
    expect(end).toEqual({ code: null, signal: "SIGTERM" });
  }, 30_000);

  it("a SIGINT whose handler calls close(), as the scaffold's main does: every line is written and the process ends by itself", async () => {
    const { ids, end, stdout } = await serveThenStop("close-on-signal", 5, (child) => child.kill("SIGINT"));
    // Written by the time close() resolved, not only at exit: the fixture's "closed" line comes after them.
    expect(linesOf(stdout).map((l) => l.requestId ?? l.msg)).toEqual([...ids, "closed"]);
    expect(end).toEqual({ code: 0, signal: null });
  }, 30_000);

  it("a SIGTERM whose `once` handler calls close(): the connector's graceful stop is not taken for no stop at all", async () => {
    const { ids, end, stdout } = await serveThenStop("close-once-on-signal", 5, (child) => child.kill("SIGTERM"));
    expect(linesOf(stdout).map((l) => l.requestId ?? l.msg)).toEqual([...ids, "closed"]);
    expect(end).toEqual({ code: 0, signal: null });
  }, 30_000);

  it("close() and a normal exit: every line is written", async () => {
    const { ids, end, stdout } = await serveThenStop("close-on-stdin-end", 5, (child) => child.stdin!.end());
    expect(linesOf(stdout).map((l) => l.requestId ?? l.msg)).toEqual([...ids, "closed"]);
    expect(end).toEqual({ code: 0, signal: null });
  }, 30_000);
});
