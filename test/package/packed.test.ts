/**
 * Issue 18: the package as a user installs it. `npm pack` builds dist/; the tarball is installed
 * into an empty project elsewhere; there, with plain Node and no TypeScript loader, the CLI runs
 * (--help, --version, check, build, init, lsp, serve and a package import), `aps-gen/client` imports, and a consumer
 * compiles with tsc in strict mode, emitting, against the declarations aps-gen ships.
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { filesOf } from "../helpers/files-of.ts";
import { httpsClient } from "../helpers/https-client.ts";
import { packedInstall, packedTarball } from "../helpers/packed-package.ts";
import { repoRoot } from "../helpers/paths.ts";
import { until } from "../helpers/until.ts";

let consumer = "";
const work: string[] = [];
beforeAll(() => {
  consumer = packedInstall();
}, 300_000);
afterAll(() => {
  for (const dir of work) rmSync(dir, { recursive: true, force: true });
});

const node = (args: string[], cwd = consumer) =>
  spawnSync(process.execPath, args, { cwd, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } });
const cli = (...args: string[]) => node([join(consumer, "node_modules/aps-gen/bin/aps-gen.js"), ...args]);
const version = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version;

describe("the packed package, installed elsewhere", () => {
  it("ships dist, bin and core types, and no sources, tests, examples or tsx", () => {
    const installed = join(consumer, "node_modules/aps-gen");
    for (const f of [
      "dist/cli-bundle/main.js",
      "dist/cli/serve/serve-model.js",
      "dist/generator/index.d.ts",
      "dist/runtime/client/index.js",
      "dist/runtime/controller/store/migrations/meta/_journal.json",
      "types/core",
      "schema/aps-declaration.schema.json",
      "LICENSE",
      "CHANGELOG.md",
    ])
      expect(existsSync(join(installed, f)), f).toBe(true);
    for (const f of ["generator", "runtime", "test", "types/examples", "generated", "bench"])
      expect(existsSync(join(installed, f)), f).toBe(false);
    expect(existsSync(join(consumer, "node_modules/tsx"))).toBe(false);
    // Tarball size, reported for the note.
    console.log(`tarball ${packedTarball(consumer)}`);
  });

  it("runs the CLI with plain node: --help, --version, check and build", () => {
    const help = cli("--help");
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/aps-gen check/);
    expect(cli("--version").stdout.trim()).toBe(version);
    cpSync(join(repoRoot, "types/examples/cloudmail"), join(consumer, "cloudmail"), { recursive: true });
    const check = cli("check", "--types", "cloudmail");
    expect(check.status, check.stderr + check.stdout).toBe(0);
    expect(check.stdout).toMatch(/✓ 22 types checked/);
    const build = cli("build", "--types", "cloudmail", "--out", "generated");
    expect(build.status, build.stderr + build.stdout).toBe(0);
    expect(existsSync(join(consumer, "generated/client/cloudmail/index.gen.ts"))).toBe(true);
  }, 60_000);

  it("runs the language server with plain node: answers initialize, publishes a diagnostic, ends on exit", async () => {
    const workspace = join(consumer, "lsp-workspace");
    mkdirSync(workspace, { recursive: true });
    writeFileSync(
      join(workspace, "bad.schema"),
      JSON.stringify({
        apsVersion: "2.0",
        name: "Bad",
        id: "http://fixtures.example/bad/1.0",
        implements: ["http://aps-standard.org/types/core/resource/1.0"],
        properties: { a: { type: "string", requried: true } },
      }),
    );
    const frame = (message: object) => {
      const body = JSON.stringify({ jsonrpc: "2.0", ...message });
      return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    };
    // Messages are handled in order: the diagnostics of "initialized" are written before "shutdown" is answered.
    const input = [
      frame({
        id: 1,
        method: "initialize",
        params: { processId: null, rootUri: pathToFileURL(workspace).href, capabilities: {} },
      }),
      frame({ method: "initialized", params: {} }),
      frame({ id: 2, method: "shutdown" }),
      frame({ method: "exit" }),
    ].join("");
    // Standard input stays open: an editor closing it before "exit" would end the server with code 1.
    const child = spawn(process.execPath, [join(consumer, "node_modules/aps-gen/bin/aps-gen.js"), "lsp", "--stdio"], {
      cwd: workspace,
      env: { ...process.env, NODE_OPTIONS: "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const status = await new Promise<number | null>((done) => {
      child.on("close", done);
      child.stdin.write(input);
    });
    expect(status, stderr + stdout).toBe(0);
    expect(stdout).toContain('"serverInfo":{"name":"aps-gen"}');
    expect(stdout).toMatch(/"method":"textDocument\/publishDiagnostics".*"code":"APS031"/);
  }, 60_000);

  it("imports aps-gen/client and aps-gen/connector with plain node", () => {
    const r = node([
      "--input-type=module",
      "-e",
      "const c = await import('aps-gen/client'); const k = await import('aps-gen/connector'); console.log(typeof c.createClient, typeof k.createConnectorApp);",
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("function function");
  });

  it("carries the built console and serves it from dist/console, with no build at run time", () => {
    const installed = join(consumer, "node_modules/aps-gen");
    for (const f of ["dist/console/index.html", "dist/console/app.js", "dist/console/app.css"])
      expect(existsSync(join(installed, f)), f).toBe(true);
    expect(existsSync(join(installed, "console")), "the console's sources").toBe(false);
    expect(existsSync(join(consumer, "node_modules/preact")), "preact is bundled, not installed").toBe(false);
    const r = node([
      "--input-type=module",
      "-e",
      "const { defaultConsoleFolder } = await import('./node_modules/aps-gen/dist/runtime/controller/routes/console.js'); console.log(defaultConsoleFolder());",
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(join(installed, "dist", "console"));
  });

  it("carries its guarded copy of postgres.js and opens the controller's connections with it, whatever the installer ran", () => {
    const installed = join(consumer, "node_modules/aps-gen/dist");
    const connection = readFileSync(join(installed, "vendor/postgres/connection.js"), "utf8");
    expect(connection).toContain("/* aps-gen write guard */");
    expect(connection).toContain("return fetchArrayTypes().catch(noop)");
    expect(readFileSync(join(installed, "runtime/controller/store/postgres-driver.js"), "utf8")).toMatch(
      /from "\.\.\/\.\.\/\.\.\/vendor\/postgres\/index\.js"/,
    );
    const r = node([
      "--input-type=module",
      "-e",
      "const { default: postgres } = await import('./node_modules/aps-gen/dist/runtime/controller/store/postgres-driver.js'); console.log(typeof postgres, typeof postgres.toPascal);",
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("function function");
  });

  it("exports the declaration schema editors use", () => {
    const r = node([
      "--input-type=module",
      "-e",
      "import { createRequire } from 'node:module'; const s = createRequire(process.cwd() + '/').resolve('aps-gen/schema/declaration.json'); const { readFileSync } = await import('node:fs'); console.log(JSON.parse(readFileSync(s, 'utf8')).$schema);",
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("http://json-schema.org/draft-07/schema#");
  });

  it("resolves the runtime subpaths init projects import, and refuses the modules exports does not list", () => {
    const script = [
      "const tls = await import('aps-gen/runtime/connector/tls');",
      "const refused = async (s) => import(s).then(() => 'imported', (e) => e.code);",
      "console.log(typeof tls.ensureConnectorTls, await refused('aps-gen/runtime/controller/serve'), await refused('aps-gen/runtime/common/json-text'));",
    ].join(" ");
    const r = node(["--input-type=module", "-e", script]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("function ERR_PACKAGE_PATH_NOT_EXPORTED ERR_PACKAGE_PATH_NOT_EXPORTED");
  });

  it("compiles a consumer with tsc (strict, emitting) against the generated client and aps-gen's declarations", () => {
    mkdirSync(join(consumer, "node_modules/@types"), { recursive: true });
    if (!existsSync(join(consumer, "node_modules/@types/node")))
      symlinkSync(join(repoRoot, "node_modules/@types/node"), join(consumer, "node_modules/@types/node"));
    writeFileSync(
      join(consumer, "script.ts"),
      [
        'import { createClient, rql } from "aps-gen/client";',
        'import { compile } from "aps-gen";',
        'import type { ServiceHandlers } from "aps-gen/connector";',
        'import { listMailboxes } from "./generated/client/cloudmail/index.gen.js";',
        'const client = createClient({ baseUrl: "https://127.0.0.1:8443", token: "t" });',
        "const handlers: ServiceHandlers | undefined = undefined;",
        'export const pending = [listMailboxes(client), compile(["cloudmail"], { cwd: "." }).diagnostics.length, handlers, rql];',
        "",
      ].join("\n"),
    );
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "es2022",
          module: "nodenext",
          moduleResolution: "nodenext",
          strict: true,
          outDir: "out",
          types: ["node"],
          skipLibCheck: false,
          allowImportingTsExtensions: false,
        },
        files: ["script.ts"],
      }),
    );
    const tsc = node([join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"]);
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
    expect(existsSync(join(consumer, "out/script.js"))).toBe(true);
  }, 120_000);

  it("init writes a project that depends on the published version range, named after APP-META", () => {
    const project = join(consumer, "connector");
    const r = cli("init", project, "--package", "cloudmail");
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as {
      name: string;
      dependencies: Record<string, string>;
      scripts: Record<string, string>;
    };
    expect(pkg.dependencies["aps-gen"]).toBe(`^${version}`);
    expect(pkg.name).toBe("cloud-mail-connector");
    expect(pkg.scripts.dev).toMatch(/--watch/);
  }, 60_000);

  it("serves: starts, answers over HTTPS, imports a package (compiled in its worker thread), stops on SIGTERM", async () => {
    const data = join(consumer, "serve-data");
    work.push(data);
    // Its own embedded database: $DATABASE_URL (CI sets it) names a database other suites share,
    // where the package imported below may be there already (409).
    // With a V8 flag as operators give one, which the worker thread must not be handed
    // (--liftoff-only: less CPU for a short-lived process, test/e2e/serve-process.ts).
    const child = spawn(
      process.execPath,
      [
        "--liftoff-only",
        join(consumer, "node_modules/aps-gen/bin/aps-gen.js"),
        "serve",
        "--types",
        "cloudmail",
        "--port",
        "0",
        "--data",
        data,
      ],
      { cwd: consumer, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_OPTIONS: "", DATABASE_URL: "" } },
    );
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on("data", () => {
        // The address and the CA line are two writes that may arrive in separate chunks.
        const m = /controller on (https:\/\/\S+)/.exec(err);
        if (m && /CA certificate: \S+/.test(err)) resolve(m[1]!);
      });
      child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
    });
    const ca = readFileSync(/CA certificate: (\S+)/.exec(err)![1]!, "utf8");
    const { request } = await import("node:https");
    const status = await new Promise<number>((resolve, reject) =>
      request(`${url}/aps/2/ui/runtime/version.html`, { ca }, (res) => resolve(res.statusCode ?? 0))
        .on("error", reject)
        .end(),
    );
    expect(status).toBe(200);
    // The compiler's worker thread runs from dist/ here: plain JavaScript, no TypeScript loader.
    const call = httpsClient(url, ca);
    const archive = zipSync(filesOf(join(repoRoot, "types/examples/vpscloud")));
    const imported = await call("POST", "/aps/2/packages", {
      token: readFileSync(join(data, "admin.token"), "utf8").trim(),
      rawBody: archive,
      headers: { "content-type": "application/zip" },
    });
    expect(imported.status, imported.text).toBe(201);
    expect(imported.json.types).toContain("http://vpscloud.example.net/types/vps/1.1");
    // The log lines come through a pipe, maybe after the answer.
    await until("the import's last log line", () => out.includes('"msg":"package import ended"'));
    expect(out).toMatch(/"phase":"worker"/);
    child.kill("SIGTERM");
    expect(await new Promise((resolve) => child.on("exit", resolve))).toBe(0);
  }, 120_000);
});
