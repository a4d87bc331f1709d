import { readFileSync } from "node:fs";
import { until } from "./until.ts";

/**
 * The port a child process (the Python endpoints) wrote to `file` once it listens. Waits for a
 * whole number, not only for the file: a reader can open it between its creation and the write,
 * and an empty port made an endpoint URL of "https://127.0.0.1:" (seen on a loaded machine).
 */
export function portWrittenTo(file: string, ms = 20_000): Promise<number> {
  return until(
    `a port number in ${file}`,
    () => {
      let text: string;
      try {
        text = readFileSync(file, "utf8").trim();
      } catch {
        return undefined;
      }
      return /^\d+$/.test(text) ? Number(text) : undefined;
    },
    ms,
  );
}
