/** Where console output goes; tests pass their own. */
export interface Console {
  out(line: string): void;
  err(line: string): void;
}

export const processConsole: Console = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** Exit codes: 0 clean, 1 findings (errors, stale output), 2 unusable input or usage. */
export const ExitCode = { ok: 0, findings: 1, unusable: 2 } as const;

/**
 * Ends the process with one line and exit code 2 when its output is closed early (a reader such
 * as `| head` that stops reading), instead of Node's EPIPE stack trace.
 */
let guardingOutput = false;
export function endOnClosedOutput(): void {
  if (guardingOutput) return;
  guardingOutput = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
      try {
        process.stderr.write(`aps-gen: output closed by the reader (EPIPE); stopped\n`);
      } catch {
        // stderr is the closed one: nothing can be said.
      }
      process.exit(ExitCode.unusable);
    });
  }
}

/** `1 type`, `2 types`. */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

export async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
