import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./paths.ts";

const REGISTER = join(repoRoot, "test/helpers/import-trace/register.mjs");

/**
 * Runs `node <args>` in a fresh process and returns every module URL it loaded (resolved by
 * Node's module hooks, so lazily imported modules count only when really imported).
 */
export function modulesLoaded(
  args: readonly string[],
  cwd = repoRoot,
): { urls: string[]; status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), "aps-import-trace-"));
  const trace = join(dir, "trace");
  try {
    const r = spawnSync(process.execPath, ["--import", REGISTER, ...args], {
      cwd,
      encoding: "utf8",
      env: { ...process.env, APS_IMPORT_TRACE: trace, NODE_OPTIONS: "" },
    });
    let urls: string[] = [];
    try {
      urls = [...new Set(readFileSync(trace, "utf8").split("\n").filter(Boolean))];
    } catch {
      // Nothing loaded (the process failed before its first import).
    }
    return { urls, status: r.status, output: `${r.stdout}${r.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The server-side packages and modules a light entry point must never load. */
export const SERVER_ONLY =
  /node_modules\/(@electric-sql\/pglite|drizzle-orm|postgres|pino|hono|@hono\/node-server|jose|prom-client)\/|\/runtime\/controller\//;
