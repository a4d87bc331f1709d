import pino, { type Logger } from "pino";

/** Log lines are written when this much is waiting, or after {@link FLUSH_EVERY_MS} at the latest. */
const WRITE_AT_BYTES = 4096;
const FLUSH_EVERY_MS = 200;

/**
 * The logger of a controller started without one: JSON lines at LOG_LEVEL (info by default),
 * with tokens, bodies and secrets redacted wherever a log record carries them.
 *
 * Standard output is written in blocks, asynchronously (pino's `sync: false` destination with a
 * minimum length): a line per request is what operators run with, and a write per line cost a
 * GET about a fifth of its throughput, where blocks of 4 KiB cost about a twentieth
 * (docs/performance.md). A line waits at most 200 ms before it is written, and pino writes what is
 * waiting when the process exits; a process killed with SIGKILL loses at most those 200 ms.
 */
export function defaultControllerLogger(): Logger {
  const destination = pino.destination({ dest: 1, sync: false, minLength: WRITE_AT_BYTES });
  setInterval(() => flushQuietly(destination), FLUSH_EVERY_MS).unref();
  return pino({ level: process.env.LOG_LEVEL ?? "info", redact: { paths: ["req.headers[\"aps-token\"]", "headers[\"aps-token\"]", "token", "body", "secrets"], censor: "[redacted]" } }, destination);
}

/** Writes what is waiting; a flush while a write is in flight or after the stream ended is no error worth a crash. */
function flushQuietly(destination: { flush(cb?: (error?: Error) => void): void }): void {
  try {
    destination.flush(() => {});
  } catch {
    // Not ready yet (the descriptor opens asynchronously) or already ended: the next tick, or exit, writes it.
  }
}
