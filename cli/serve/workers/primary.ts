/**
 * The primary process of `serve --workers N` (node:cluster): it forks N workers that share the
 * port (the cluster hands each new connection to the next worker in turn) and serves nothing
 * itself. Worker 1 starts first and alone, so the first start's work (keys, TLS files,
 * migrations, the provider account) is done once; the others then start together, applying no
 * migration. Worker 1 also runs the polling loops (controller-options.ts `backgroundLoops` says
 * why only one). A worker that ends is started again in its slot (restart-backoff.ts); SIGTERM or
 * SIGINT tells every worker to finish the requests in hand and waits for them. The console's live
 * log of calls to applications is merged here over all workers (merged-call-log.ts).
 */
import cluster, { type Worker } from "node:cluster";
import { AggregatorRegistry } from "prom-client";
import { ExitCode, type Console } from "../../output/console.ts";
import {
  isMessage,
  WORKER_ROLE_VARIABLE,
  type DrainMessage,
  type ListeningMessage,
  type MetricsReply,
  type MetricsRequest,
  type WorkerRole,
} from "./messages.ts";
import { MergedCallLog, type CallLogPeer } from "./merged-call-log.ts";
import { RestartBackoff } from "./restart-backoff.ts";
import { untilStopSignal } from "./stop-signal.ts";

/** A place for one worker: started again in the same slot when it ends. */
interface Slot {
  readonly number: number;
  readonly backoff: RestartBackoff;
  worker?: Worker;
  startedAt: number;
  restart?: NodeJS.Timeout;
}

/** Runs N workers until SIGTERM/SIGINT; `started` prints the first worker's start lines once all listen. */
export async function runWorkers(
  count: number,
  port: number,
  io: Console,
  started: (first: ListeningMessage) => void,
): Promise<number> {
  let stopping = false;
  // Until every worker has listened once, a worker that ends fails the start instead of being replaced.
  let supervising = false;
  const slots: Slot[] = Array.from({ length: count }, (_, i) => ({
    number: i + 1,
    backoff: new RestartBackoff(),
    startedAt: 0,
  }));
  const stopped = untilStopSignal();
  const metrics = new AggregatorRegistry();
  const calls = new MergedCallLog();
  const onMessage = (worker: Worker, message: unknown) => {
    if (!isMessage<MetricsRequest>(message, "aps-gen:metrics-request")) return;
    const reply = (answer: Omit<MetricsReply, "type" | "id">) => {
      if (worker.isConnected())
        worker.send({ type: "aps-gen:metrics-reply", id: message.id, ...answer } satisfies MetricsReply);
    };
    metrics.clusterMetrics().then(
      (text) => reply({ text }),
      (error: unknown) => reply({ error: (error as Error).message }),
    );
  };
  cluster.on("message", onMessage);

  /** Forks the slot's worker; resolves when it listens, or with the exit code if it ends before. */
  const fork = (slot: Slot, migrate: boolean): Promise<ListeningMessage | { exit: number }> => {
    const role: WorkerRole = { slot: slot.number, loops: slot.number === 1, migrate, port };
    const worker = cluster.fork({ [WORKER_ROLE_VARIABLE]: JSON.stringify(role) });
    slot.worker = worker;
    slot.startedAt = Date.now();
    const peer: CallLogPeer = {
      slot: slot.number,
      // A worker that is going away may still be sent an entry: it is dropped (without the
      // callback, a closed channel's error would end the primary).
      send: (message) => {
        if (worker.isConnected()) worker.send(message, () => {});
      },
    };
    return new Promise((settle) => {
      worker.on("message", (message: unknown) => {
        if (isMessage<ListeningMessage>(message, "aps-gen:listening")) settle(message);
        else calls.receive(peer, message);
      });
      worker.once("exit", (code, signal) => {
        calls.forget(peer);
        settle({ exit: code || (signal ? 1 : ExitCode.unusable) });
        if (slot.worker === worker) slot.worker = undefined;
        if (supervising && !stopping) replace(slot, worker, code, signal);
      });
    });
  };

  const replace = (slot: Slot, worker: Worker, code: number | null, signal: string | null) => {
    const wait = slot.backoff.waitAfter(Date.now() - slot.startedAt);
    io.err(
      `worker ${slot.number} (pid ${worker.process.pid}) ended (${signal ?? `exit code ${code}`}); starting another ${wait ? `in ${wait / 1000} s` : "now"}`,
    );
    slot.restart = setTimeout(() => {
      slot.restart = undefined;
      if (stopping) return;
      void fork(slot, false).then((result) => {
        if ("url" in result) io.err(`worker ${slot.number} serving again (pid ${slot.worker?.process.pid})`);
      });
    }, wait);
  };

  const drain = async (): Promise<void> => {
    stopping = true;
    for (const slot of slots) clearTimeout(slot.restart);
    const running = slots.map((s) => s.worker).filter((w): w is Worker => w !== undefined && !w.isDead());
    await Promise.all(
      running.map(
        (worker) =>
          new Promise<void>((gone) => {
            worker.once("exit", () => gone());
            if (worker.isConnected()) worker.send({ type: "aps-gen:drain" } satisfies DrainMessage);
            else worker.kill();
          }),
      ),
    );
    cluster.off("message", onMessage);
  };

  // Worker 1 alone first (the first start's work, once), then the others together.
  const starting = (async () => {
    const first = await fork(slots[0]!, true);
    if (!("url" in first) || stopping) return first;
    const others = await Promise.all(slots.slice(1).map((slot) => fork(slot, false)));
    return others.find((o) => !("url" in o)) ?? first;
  })();
  const start = await Promise.race([starting, stopped.then(() => undefined)]);
  if (start === undefined || !("url" in start)) {
    // A worker could not start (it said why) or the start was interrupted: stop those that did.
    await drain();
    return start === undefined ? ExitCode.ok : start.exit;
  }
  supervising = true;
  started(start);
  await stopped;
  io.err("stopping: finishing running requests");
  await drain();
  return ExitCode.ok;
}
