import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, withoutDatabaseUrl } from "../helpers/cli-run.ts";
import { repoRoot } from "../helpers/paths.ts";

/**
 * Issue 18: an unusable environment ends with one clear line and exit code 2, never a stack
 * trace or a key minted where none was asked for.
 */
const root = mkdtempSync(join(tmpdir(), "aps-env-failures-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
withoutDatabaseUrl();
const run = (...argv: string[]) => runCli(argv);

const TYPES = ["--types", "types/examples/cloudmail"];

describe("environment failures", () => {
  it("token --data <a folder that is no controller's> refuses, and mints no key there", async () => {
    const wrong = join(root, "not-a-data-folder");
    const r = await run("token", "--data", wrong);
    expect(r.code).toBe(2);
    expect(r.out).toEqual([]);
    expect(r.err).toEqual([
      expect.stringMatching(/^aps-gen token: .* is not a controller's data folder \(it has no keys\/token\.key\)/),
    ]);
    expect(existsSync(wrong)).toBe(false);
  });

  it("serve on a port in use says so in one line", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((ready) => blocker.listen(0, "127.0.0.1", ready));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await run("serve", ...TYPES, "--port", String(port), "--data", join(root, "port-data"));
      expect(r.code).toBe(2);
      expect(r.err.at(-1)).toBe(
        `aps-gen serve: port ${port} on 127.0.0.1 is in use by another process; stop it or give another --port`,
      );
      expect(r.err.join("\n")).not.toMatch(/\n\s+at /);
      // Nothing is left holding the folder: a serve that can listen starts there afterwards.
      expect(existsSync(join(root, "port-data", "controller.pid"))).toBe(false);
    } finally {
      blocker.close();
    }
  }, 60_000);

  it("serve on an address this machine does not have, or a host name that does not resolve, says so in one line", async () => {
    for (const [host, line] of [
      ["203.0.113.1", "aps-gen serve: cannot listen on 203.0.113.1:0: no such address on this machine"],
      [
        "no-such-host.invalid",
        "aps-gen serve: cannot listen on no-such-host.invalid:0: no address found for no-such-host.invalid; give an IP address or a name this machine resolves as --host",
      ],
    ] as const) {
      const r = await run("serve", ...TYPES, "--port", "0", "--host", host, "--data", join(root, "host-data"));
      expect(r.code, host).toBe(2);
      expect(r.err.at(-1), host).toBe(line);
      expect(r.err.join("\n")).not.toMatch(/\n\s+at /);
    }
  }, 60_000);

  it("serve on a data folder another live controller holds is refused before opening anything", async () => {
    const data = join(root, "held-data");
    mkdirSync(data, { recursive: true });
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" });
    try {
      writeFileSync(join(data, "controller.pid"), `${holder.pid}\n`);
      const r = await run("serve", ...TYPES, "--port", "0", "--data", data);
      expect(r.code).toBe(2);
      expect(r.err.at(-1)).toBe(
        `aps-gen serve: the data folder ${data} is in use by process ${holder.pid} (another controller on its embedded database); stop that one, or give this one another --data`,
      );
      expect(existsSync(join(data, "pglite"))).toBe(false);
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("serve with a database that cannot be reached says which, without the password", async () => {
    const r = await run(
      "serve",
      ...TYPES,
      "--port",
      "0",
      "--data",
      join(root, "db-data"),
      "--database-url",
      "postgres://postgres:secret@127.0.0.1:1/none",
    );
    expect(r.code).toBe(2);
    expect(r.err.at(-1)).toMatch(
      /^aps-gen serve: cannot reach the database at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none: /,
    );
    expect(r.err.join("\n")).not.toContain("secret");
  }, 60_000);

  it("output closed by the reader (| head) ends with one line and exit 2", async () => {
    const child = spawn(process.execPath, [join(repoRoot, "bin/aps-gen.js"), "rules"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    // The reader goes away before the first line, as `| head -0` or a closed pager does.
    child.stdout.destroy();
    const code = await new Promise<number | null>((done) => child.on("close", done));
    expect(code).toBe(2);
    expect(stderr.trim()).toBe("aps-gen: output closed by the reader (EPIPE); stopped");
  }, 30_000);
});
