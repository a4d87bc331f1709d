import pino, { type Logger } from "pino";

/**
 * The logger of a controller started without one: JSON lines at LOG_LEVEL (info by default),
 * with tokens, bodies and secrets redacted wherever a log record carries them.
 */
export function defaultControllerLogger(): Logger {
  return pino({ level: process.env.LOG_LEVEL ?? "info", redact: { paths: ["req.headers[\"aps-token\"]", "headers[\"aps-token\"]", "token", "body", "secrets"], censor: "[redacted]" } });
}
