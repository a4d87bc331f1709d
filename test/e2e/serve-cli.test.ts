import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { httpsClient } from "../helpers/https-client.ts";
import { repoRoot } from "../helpers/paths.ts";
import { compile } from "../../generator/pipeline.ts";

const dataDir = mkdtempSync(join(tmpdir(), "aps-serve-"));
const started: ChildProcess[] = [];
afterAll(() => {
  // A failed assertion must not leave a controller running.
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs `aps-gen serve` as a real process until it prints its URL (--liftoff-only: see serve-process.ts). */
function serve(
  types: readonly string[] = ["--types", "test/fixtures/controller/notes"],
  cwd = repoRoot,
  data = dataDir,
) {
  const child = spawn(
    process.execPath,
    ["--liftoff-only", join(repoRoot, "bin/aps-gen.js"), "serve", ...types, "--port", "0", "--data", data],
    { cwd, env: { ...process.env, DATABASE_URL: "" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  started.push(child);
  let err = "";
  let out = "";
  const ready = new Promise<string>((resolve, reject) => {
    child.stderr.on("data", (d: Buffer) => {
      err += String(d);
      // The last of the start-up lines names the admin token; by then all of them are out.
      const m = err.match(/controller on (https:\/\/\S+)/);
      if (m && err.includes("admin token in")) resolve(m[1]!);
    });
    child.stdout.on("data", (d: Buffer) => (out += String(d)));
    child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  return { child, ready, exited, output: () => ({ err, out }) };
}

describe("aps-gen serve as a process", () => {
  it("starts on the embedded database, serves, stops on SIGTERM, and starts again on the same data", async () => {
    const first = serve();
    const url = await first.ready;
    const ca = readFileSync(join(dataDir, "tls/ca.crt"), "utf8");
    const token = readFileSync(join(dataDir, "admin.token"), "utf8").trim();
    expect(statSync(join(dataDir, "admin.token")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, "keys/encryption.key")).mode & 0o777).toBe(0o600);
    const call = httpsClient(url, ca);
    expect((await call("GET", "/aps/2/ui/runtime/version.html")).text).toContain("2.0");
    const list = await call("GET", "/aps/2/resources", { token });
    expect(list.status).toBe(200);
    // The provider's account, its admin user and the platform's notification manager.
    expect(list.headers["content-range"]).toBe("items 0-2/3");
    const nav = await call("POST", "/aps/2/navigation", { token, body: { id: "ccp", items: [{ id: "home" }] } });
    expect(nav.status).toBe(201);
    expect((await call("GET", "/aps/2/types/http://notes.example/types/note/1.0", { token })).json.name).toBe("Note");
    // The console is on: served from console/build when `prepare` built it, else a 404 that says so.
    const page = await call("GET", "/console/");
    if (page.status === 200)
      expect(page.headers["content-security-policy"]).toMatch(/^default-src 'none'; script-src 'self';/);
    else expect(page.json.message).toMatch(/console is not built/);
    const providerLine = first.output().err.match(/provider account (\S+);/)![1];
    // Said before the slow part: the first start creates the embedded database.
    expect(first.output().err).toMatch(
      /^starting the controller: \d+ types · embedded database, created now in .* \(first start: a few seconds\)$/m,
    );

    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(first.output().err).toContain("stopping");
    // The log has requests but never the token.
    expect(first.output().out).toContain('"path":"/aps/2/resources"');
    expect(first.output().out).not.toContain(token);

    // Started again with --no-console: neither the console nor its live log of calls is served.
    const second = serve(["--types", "test/fixtures/controller/notes", "--no-console"]);
    const url2 = await second.ready;
    for (const path of ["/console/", "/aps/2/console/calls"]) {
      const off = await httpsClient(url2, ca)("GET", path, { token });
      expect(off.status, path).toBe(404);
      expect(off.json.message, path).toMatch(/^Nothing is served at/);
    }
    expect(second.output().err).toContain(`provider account ${providerLine};`);
    expect(second.output().err).toMatch(/^starting the controller: \d+ types · embedded database in \S+$/m);
    const again = await httpsClient(url2, ca)("GET", "/aps/2/resources", { token });
    expect(again.json).toEqual(list.json);
    second.child.kill("SIGINT");
    expect(await second.exited).toBe(0);
  }, 90_000); // two starts, the first creating the embedded database: up to ~22 s on a loaded 2-core machine

  it("started where there is nothing to serve (no --types, no ./types), serves the core types only and says where it looked", async () => {
    // A temporary folder holding another project's test fixtures in subfolders: none is read.
    const folder = mkdtempSync(join(tmpdir(), "aps-serve-nothing-"));
    try {
      cpSync(join(repoRoot, "test/fixtures/check"), join(folder, "test/fixtures/check"), { recursive: true });
      const run = serve([], folder, join(folder, ".aps-data"));
      const url = await run.ready;
      expect(run.output().err.split("\n")[0]).toBe(
        `no --types given and no ./types in ${folder}: serving the core types only; name declarations with --types <folder or .app.zip>`,
      );
      const call = httpsClient(url, readFileSync(join(folder, ".aps-data/tls/ca.crt"), "utf8"));
      const types = await call("GET", "/aps/2/types", {
        token: readFileSync(join(folder, ".aps-data/admin.token"), "utf8").trim(),
      });
      const core = [...compile([], { includeCore: true }).model.types.keys()].sort();
      expect((types.json as { id: string }[]).map((t) => t.id).sort()).toEqual(core);
      run.child.kill("SIGTERM");
      expect(await run.exited).toBe(0);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
