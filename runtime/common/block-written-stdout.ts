/**
 * Standard output for log lines, written in blocks, asynchronously: the destination of the
 * default loggers of the controller and of the connector.
 *
 * A line per request is what operators run with, and a synchronous write per line cost a
 * controller GET about a fifth of its throughput and the connector a fifth of its CPU per call,
 * where blocks of 4 KiB cost about a twentieth (docs/performance.md). pino's asynchronous
 * destination with a minimum length does the buffering (https://getpino.io/#/docs/asynchronous);
 * what is written here is when a block that is not full goes out:
 * - at most {@link FLUSH_EVERY_MS} after its first line;
 * - at exit, by pino's own exit hook (`pino.destination` with `sync: false` flushes on `exit`);
 * - on SIGTERM or SIGINT when nothing else listens for it: Node would end the process at once,
 *   without `exit` hooks, so the lines are written first and the signal then does what it does
 *   by default (a process that handles them itself ends through `exit` or keeps running);
 * - when {@link flushBlockWrittenStdout} is called (the connector's `close()`).
 * A process killed with SIGKILL loses at most the last 200 ms.
 *
 * One destination per process, made when a default logger first asks for it: two would each keep
 * a block of their own and write them in turns.
 */
import { isMainThread } from "node:worker_threads";
import pino from "pino";

/** Log lines are written when this much is waiting, or after {@link FLUSH_EVERY_MS} at the latest. */
const WRITE_AT_BYTES = 4096;
const FLUSH_EVERY_MS = 200;
/** How long a flush on close or on a signal may wait for standard output (a pipe nobody reads). */
const FLUSH_WAIT_MS = 1000;

type Destination = ReturnType<typeof pino.destination>;

let current: Destination | undefined;

/** The process's block-written standard output, made on first use. */
export function blockWrittenStdout(): Destination {
  if (current) return current;
  const destination = pino.destination({ dest: 1, sync: false, minLength: WRITE_AT_BYTES });
  const timer = setInterval(() => flushQuietly(destination), FLUSH_EVERY_MS).unref();
  const stopSignals = isMainThread ? flushOnLoneStopSignals(destination) : () => {};
  // pino ends the destination at `beforeExit`; a logger made after that gets a new one.
  destination.once("close", () => {
    clearInterval(timer);
    stopSignals();
    if (current === destination) current = undefined;
  });
  current = destination;
  return destination;
}

/** Writes what is waiting and resolves once it is written (at most after a second); nothing to do when no default logger was made. */
export function flushBlockWrittenStdout(): Promise<void> {
  const destination = current;
  return destination ? flushed(destination) : Promise.resolve();
}

function flushed(destination: Destination): Promise<void> {
  return new Promise<void>((done) => {
    const timer = setTimeout(done, FLUSH_WAIT_MS).unref();
    const finish = () => {
      clearTimeout(timer);
      done();
    };
    try {
      // The callback comes once every waiting block is written (or with the error that stopped it).
      destination.flush(finish);
    } catch {
      finish();
    }
  });
}

/** Writes what is waiting; a flush while a write is in flight or after the stream ended is no error worth a crash. */
function flushQuietly(destination: Destination): void {
  try {
    destination.flush(() => {});
  } catch {
    // Already ended (exit wrote what was waiting).
  }
}

/**
 * On SIGTERM and SIGINT that no one else listens for: write what is waiting, then stop listening
 * and send the signal again, so that it ends the process as it would have without this listener
 * (killed by the signal, as a supervisor expects). Returns the un-listening.
 *
 * The listener goes first (prepended): a listener added with `once`, or one that stops listening
 * when called (cli/serve/workers/stop-signal.ts), is gone from the count once it has run, and a
 * count taken after it would take the process's own graceful stop for no stop at all.
 */
function flushOnLoneStopSignals(destination: Destination): () => void {
  const listeners = (["SIGTERM", "SIGINT"] as const).map((signal) => {
    let stopping = false;
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) return; // The process handles it: it ends through `exit`, or goes on.
      if (stopping) return;
      stopping = true;
      void flushed(destination).then(() => {
        process.off(signal, onSignal);
        process.kill(process.pid, signal);
      });
    };
    process.prependListener(signal, onSignal);
    return () => process.off(signal, onSignal);
  });
  return () => {
    for (const off of listeners) off();
  };
}
