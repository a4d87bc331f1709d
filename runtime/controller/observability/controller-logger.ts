import pino, { type Logger } from "pino";

/**
 * The logger of a controller started without one: JSON lines at LOG_LEVEL (info by default),
 * with tokens, bodies and secrets redacted wherever a log record carries them.
 *
 * Written to standard output asynchronously (pino's `sync: false` destination): a line per request
 * is what operators run with, and a synchronous write made every request wait for the terminal or
 * pipe (about 6% of a GET's CPU time in docs/performance.md's profile). Lines written while one
 * write is in flight go out together; nothing waits for a buffer to fill, so an idle controller's
 * last lines are out at once; pino writes what is pending when the process exits.
 */
export function defaultControllerLogger(): Logger {
  return pino(
    { level: process.env.LOG_LEVEL ?? "info", redact: { paths: ["req.headers[\"aps-token\"]", "headers[\"aps-token\"]", "token", "body", "secrets"], censor: "[redacted]" } },
    pino.destination({ dest: 1, sync: false }),
  );
}
