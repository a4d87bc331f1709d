/**
 * A worker of `serve --workers N` (primary.ts forks it: the same `aps-gen serve` command line,
 * with its role in the environment). It serves on the shared port like `serve` alone, with
 * four differences: it tells the primary when it listens instead of printing the start lines,
 * it answers /metrics with the figures of all workers (asked of the primary), its console's live
 * log shows the calls of all workers (worker-call-log.ts), and it stops when the primary says so
 * or goes away.
 */
import { AggregatorRegistry } from "prom-client";
import type { RunningController } from "../../../runtime/controller/serve.ts";
import {
  isMessage,
  type DrainMessage,
  type ListeningMessage,
  type MetricsReply,
  type MetricsRequest,
  type WorkerRole,
} from "./messages.ts";

/** How long /metrics waits for the primary (which waits at most 5 s for each worker: prom-client). */
const METRICS_WAIT_MS = 10_000;

/**
 * Resolves when the worker is told to stop: the primary's drain message, or SIGTERM/SIGINT (a
 * terminal's Ctrl-C reaches every process of the group). Called first thing, so a stop asked
 * while the worker is still starting is not lost: it stops as soon as it has started.
 */
export function stopRequested(): Promise<void> {
  return new Promise<void>((stop) => {
    const onStop = () => {
      process.off("SIGTERM", onStop);
      process.off("SIGINT", onStop);
      process.off("message", onMessage);
      stop();
    };
    const onMessage = (message: unknown) => {
      if (isMessage<DrainMessage>(message, "aps-gen:drain")) onStop();
    };
    process.on("SIGTERM", onStop);
    process.on("SIGINT", onStop);
    process.on("message", onMessage);
  });
}

/** Runs a started controller as a worker until `stop`; resolves once it has stopped. */
export async function serveAsWorker(
  controller: RunningController,
  role: WorkerRole,
  stop: Promise<void>,
): Promise<void> {
  // Answers the primary's requests for this worker's registry (prom-client's cluster protocol).
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([controller.metrics.registry]);
  controller.metrics.gatherWith(metricsOfAllWorkers);
  const listening: ListeningMessage = {
    type: "aps-gen:listening",
    slot: role.slot,
    url: controller.url,
    caCertPath: controller.caCertPath,
    accountId: controller.provider.accountId,
    adminTokenPath: controller.provider.adminTokenPath,
    database: controller.database,
  };
  process.send!(listening);
  await stop;
  await controller.close();
}

let asked = 0;

/** The /metrics text of all workers, summed by the primary. */
function metricsOfAllWorkers(): Promise<string> {
  const id = ++asked;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => finish(new Error("the primary process did not send the workers' metrics in time")),
      METRICS_WAIT_MS,
    );
    const onMessage = (message: unknown) => {
      if (!isMessage<MetricsReply>(message, "aps-gen:metrics-reply") || message.id !== id) return;
      finish(
        message.error === undefined ? undefined : new Error(`metrics of the workers: ${message.error}`),
        message.text,
      );
    };
    function finish(error: Error | undefined, text?: string) {
      clearTimeout(timer);
      process.off("message", onMessage);
      if (error) reject(error);
      else resolve(text ?? "");
    }
    process.on("message", onMessage);
    const request: MetricsRequest = { type: "aps-gen:metrics-request", id };
    process.send!(request);
  });
}
