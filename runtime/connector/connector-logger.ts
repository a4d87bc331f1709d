import pino, { type Logger } from "pino";
import { blockWrittenStdout } from "../common/block-written-stdout.ts";

/**
 * The logger of a connector app made without one: JSON lines at LOG_LEVEL (info by default), as
 * the controller logs, on standard output written in blocks, asynchronously: a synchronous write
 * per call's line was a fifth of the connector's CPU per call (docs/performance.md).
 * common/block-written-stdout.ts says when a line goes out; `startConnector`'s `close()` writes
 * what is waiting.
 */
export function defaultConnectorLogger(): Logger {
  return pino({ level: process.env.LOG_LEVEL ?? "info" }, blockWrittenStdout());
}
