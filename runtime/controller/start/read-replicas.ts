import type { Logger } from "pino";
import type { ControllerMetrics } from "../observability/metrics.ts";
import type { Db } from "../store/open-database.ts";
import { ReplicaReads } from "../store/replica-reads.ts";
import { ControllerStartError } from "../support/start-errors.ts";
import type { ControllerOptions } from "./controller-options.ts";
import type { HeldResources } from "./held-resources.ts";

/**
 * The read replicas of a start (`serve --read-database-url`, store/replica-reads.ts): named by
 * host:port (never by URL, which may hold a password), polled from now on, closed with the
 * controller. None is reached here: a replica that is down when the controller starts is
 * skipped until it answers, as one that goes down later is.
 */
export function openReadReplicas(
  options: ControllerOptions,
  db: Db,
  metrics: ControllerMetrics,
  logger: Logger,
  held: HeldResources,
): ReplicaReads | undefined {
  const urls = options.readDatabaseUrls ?? [];
  if (urls.length === 0) return undefined;
  const replicas = urls.map((url) => ({ name: replicaName(url), url }));
  const twice = replicas.find((r, i) => replicas.findIndex((o) => o.name === r.name) !== i);
  if (twice)
    throw new ControllerStartError(
      `the read replica ${twice.name} is given twice; give each replica once`,
      "read-replicas-unusable",
    );
  const reads = new ReplicaReads(
    db,
    {
      replicas,
      ...(options.readMaxLagMs !== undefined ? { maxLagMs: options.readMaxLagMs } : {}),
      ...(options.readFence === false ? { fence: false } : {}),
    },
    metrics.reads,
    logger,
  );
  metrics.watchReplicas(() => reads.statuses());
  held.hold(() => reads.close());
  reads.start();
  logger.info(
    { replicas: replicas.map((r) => r.name), maxLagMs: reads.maxLagMs },
    "reads of resources and lists may go to the read replicas",
  );
  return reads;
}

/**
 * Replicas stand beside a PostgreSQL primary: the embedded database has none, and the fence that
 * keeps reads after writes correct asks a PostgreSQL primary for its WAL position.
 */
export function refuseReadReplicasOnEmbeddedDatabase(): ControllerStartError {
  return new ControllerStartError(
    "--read-database-url needs a PostgreSQL primary (--database-url): the embedded database has no replicas",
    "read-replicas-unusable",
  );
}

/** host:port of a PostgreSQL URL (port 5432 when it names none). */
function replicaName(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ControllerStartError(
      "a --read-database-url is not a URL (postgres://user@host:port/database)",
      "read-replicas-unusable",
    );
  }
  if (!/^postgres(ql)?:$/.test(parsed.protocol) || !parsed.hostname)
    throw new ControllerStartError(
      `a --read-database-url is not a PostgreSQL URL (postgres://user@host:port/database): it starts with ${parsed.protocol}`,
      "read-replicas-unusable",
    );
  return `${parsed.hostname}:${parsed.port || "5432"}`;
}
