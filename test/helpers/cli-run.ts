import { afterAll, beforeAll } from "vitest";
import { main } from "../../cli/main.ts";
import { repoRoot } from "./paths.ts";

/** Runs the CLI in process from `cwd` and returns its exit code and output lines. */
export async function runCli(argv: readonly string[], cwd = repoRoot) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, cwd);
  return { code, out, err };
}

/**
 * For suites about the embedded database of a data folder: `serve` takes $DATABASE_URL when no
 * --database-url is given (CI sets it), so the variable is put aside while the suite runs.
 */
export function withoutDatabaseUrl(): void {
  const saved = process.env.DATABASE_URL;
  beforeAll(() => {
    delete process.env.DATABASE_URL;
  });
  afterAll(() => {
    if (saved !== undefined) process.env.DATABASE_URL = saved;
  });
}
