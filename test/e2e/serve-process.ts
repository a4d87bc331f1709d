/**
 * `aps-gen serve` as a real process (so that a test can SIGKILL it), on a free port, with its
 * data folder and database; `url` resolves once it listens and has written the admin token. Also
 * a scratch PostgreSQL database for such a process.
 */
import { spawn, type ChildProcess } from "node:child_process";
import postgres from "postgres";
import { repoRoot } from "../helpers/paths.ts";

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly url: Promise<string>;
}

export function serveProcess(dataDir: string, databaseUrl: string | undefined, extraArgs: readonly string[] = []): ServeProcess {
  const child = spawn(process.execPath, ["bin/aps-gen.js", "serve", "--types", "types/examples/cloudmail", "--port", "0", "--data", dataDir, ...extraArgs], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: databaseUrl ?? "", LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "pipe"],
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
  return { child, url };
}

/** Kills the process outright (no graceful stop) and waits until it is gone. */
export async function killHard(p: ServeProcess): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const gone = new Promise((r) => p.child.once("exit", r));
  p.child.kill("SIGKILL");
  await gone;
}

/** A database of its own on the PostgreSQL server of `DATABASE_URL`, for one suite. */
export interface ScratchDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/** Creates `<prefix>_<pid>_<random>` on the server of `DATABASE_URL`. */
export async function scratchDatabase(prefix: string): Promise<ScratchDatabase> {
  const server = process.env.DATABASE_URL;
  if (!server) throw new Error("DATABASE_URL is not set: no PostgreSQL server to make a database on.");
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 7)}`;
  const admin = postgres(server, { onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: Object.assign(new URL(server), { pathname: `/${name}` }).toString(),
    drop: async () => {
      const a = postgres(server, { onnotice: () => {} });
      try {
        await a.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await a.end();
      }
    },
  };
}
