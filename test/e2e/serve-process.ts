/**
 * `aps-gen serve` as a real process (so that a test can SIGKILL it), on a free port, with its
 * data folder and database; `url` resolves once it listens and has written the admin token. The
 * process runs the CLI built into dist/, as operators run the installed package (the build is
 * made once per test run: helpers/packed-package.ts); test/e2e/serve-cli.test.ts starts it from
 * the sources, as `npm start` does in a checkout.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { builtCli } from "../helpers/packed-package.ts";
import { repoRoot } from "../helpers/paths.ts";
import { pgliteTemplate } from "../helpers/pglite-template.ts";

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly url: Promise<string>;
  /** Its log lines (pino JSON, stdout) so far, when started with a `logLevel`. */
  readonly logs: string[];
  /** What it wrote to standard error so far (its start lines, a worker's end, a crash), for a failing test to show. */
  stderr(): string;
}

/**
 * `logLevel` keeps the log lines at that level and above (in `logs`); without it, warnings and errors go unread.
 * On the embedded database, a data folder without one gets a copy of the run's migrated template
 * first (helpers/pglite-template.ts): the process then opens it as it reopens its own database
 * after a restart, instead of running initdb and every migration (measured on 2 busy cores:
 * ~15 s -> ~8.5 s of CPU, ~22 s -> ~12 s until it listens). test/e2e/serve-cli.test.ts and
 * test/package/packed.test.ts still start `serve` on an empty folder.
 */
export async function serveProcess(
  dataDir: string,
  databaseUrl: string | undefined,
  extraArgs: readonly string[] = [],
  options: { logLevel?: string } = {},
): Promise<ServeProcess> {
  if (!databaseUrl) await seedEmbeddedDatabase(dataDir);
  const cli = await builtCli();
  // --liftoff-only: V8 runs PGlite's WebAssembly as first compiled instead of also compiling its
  // hot functions again with TurboFan on a background thread, which a process that lives for a
  // few requests never wins back (a start on an empty folder: 8.6 s of CPU -> 6.0 s). Same
  // semantics; and `serve` given a V8 flag must still start its package compiler's worker.
  const child = spawn(
    process.execPath,
    [
      "--liftoff-only",
      cli,
      "serve",
      "--types",
      "types/examples/cloudmail",
      "--port",
      "0",
      "--data",
      dataDir,
      ...extraArgs,
    ],
    {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: databaseUrl ?? "", LOG_LEVEL: options.logLevel ?? "warn" },
      stdio: ["ignore", options.logLevel ? "pipe" : "ignore", "pipe"],
    },
  );
  const logs: string[] = [];
  let partial = "";
  child.stdout?.on("data", (d: Buffer) => {
    const lines = (partial + String(d)).split("\n");
    partial = lines.pop()!;
    logs.push(...lines.filter(Boolean));
  });
  let err = "";
  const url = new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (d: Buffer) => {
      err += String(d);
      const m = err.match(/controller on (https:\/\/\S+)/);
      if (m && err.includes("admin token in")) resolve(m[1]!);
    });
    child.on("exit", (code, signal) => reject(new Error(`serve ended (${code ?? signal}): ${err}`)));
  });
  url.catch(() => {});
  return { child, url, logs, stderr: () => err };
}

/** Where `aps-gen serve --data <dataDir>` keeps its embedded database (open-database.ts). */
async function seedEmbeddedDatabase(dataDir: string): Promise<void> {
  const pgdata = join(dataDir, "pgdata");
  if (existsSync(join(pgdata, "PG_VERSION"))) return;
  const template = await pgliteTemplate();
  if (!template) return;
  mkdirSync(pgdata, { recursive: true, mode: 0o700 });
  cpSync(template, pgdata, { recursive: true });
}

/** Kills the process outright (no graceful stop) and waits until it is gone. */
export async function killHard(p: ServeProcess): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const gone = new Promise((r) => p.child.once("exit", r));
  p.child.kill("SIGKILL");
  await gone;
}
