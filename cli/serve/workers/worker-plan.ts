import { availableParallelism } from "node:os";

/** How many processes `serve` runs, and the line to say when that is not what was asked. */
export type WorkerPlan = { readonly count: number; readonly note?: string } | { readonly error: string };

/**
 * `serve --workers N`: on PostgreSQL, N processes (default: the machine's available
 * parallelism, os.availableParallelism()); the embedded PGlite database is one process's files,
 * so there it is always one, said in one line when more were asked. So is the CLI's main() run
 * inside another program (`ownProcess` false: tests, an embedding host), whose command line is
 * not aps-gen's to fork.
 */
export function workerPlan(
  asked: number | undefined,
  postgres: boolean,
  ownProcess: boolean,
  cores: number = availableParallelism(),
): WorkerPlan {
  if (asked !== undefined && !(Number.isInteger(asked) && asked >= 1))
    return { error: `--workers takes a whole number of at least 1, not ${asked}` };
  if (!ownProcess)
    return asked !== undefined && asked > 1
      ? {
          count: 1,
          note: `serve called inside another program serves from its process: --workers ${asked} runs as 1 (run the aps-gen command for more)`,
        }
      : { count: 1 };
  if (!postgres)
    return asked !== undefined && asked > 1
      ? {
          count: 1,
          note: `PGlite serves from one process: --workers ${asked} runs as 1 (give a PostgreSQL --database-url for more)`,
        }
      : { count: 1 };
  return { count: asked ?? Math.max(1, cores) };
}
