import pino, { type Logger } from "pino";
import { blockWrittenStdout } from "../../common/block-written-stdout.ts";

/**
 * The logger of a controller started without one: JSON lines at LOG_LEVEL (info by default),
 * with tokens, bodies and secrets redacted wherever a log record carries them, on standard output
 * written in blocks, asynchronously (common/block-written-stdout.ts says when a line goes out).
 */
export function defaultControllerLogger(): Logger {
  return pino(
    {
      level: process.env.LOG_LEVEL ?? "info",
      redact: {
        paths: ['req.headers["aps-token"]', 'headers["aps-token"]', "token", "body", "secrets"],
        censor: "[redacted]",
      },
    },
    blockWrittenStdout(),
  );
}
