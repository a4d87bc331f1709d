/**
 * The controller's Prometheus metrics (issue 18), served at /metrics. Each controller has a
 * registry of its own, never prom-client's global one: several controllers run in one process
 * (tests, an embedding host), and each must report only itself.
 *
 * Labels are bounded: routes by their pattern (route-pattern.ts), statuses, methods, and the
 * outcome class of endpoint calls; never ids, paths or instances. The queue gauges are read from
 * the database on each scrape (one count each), so every controller process on a shared
 * PostgreSQL reports the same queue; sum the request metrics, not the gauges, across processes.
 */
import { sql } from "drizzle-orm";
import type { Logger } from "pino";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { loggableError } from "../support/loggable-error.ts";
import { rowsOf, type Db } from "../store/open-database.ts";
import type { ReplicaStatus } from "../store/read-replica.ts";
import type { ReadCounters } from "../store/replica-reads.ts";
import { TimedOut, withinMs } from "./time-bound.ts";
import { DatabaseOutageLog } from "./database-outage-log.ts";
import { isDatabaseUnavailable } from "../store/database-unavailable.ts";

/** Seconds; up to the 30 s endpoint time-out, which a slow application call may reach. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** How long a scrape waits for the queue counts before reporting them as unknown (NaN). */
const GAUGE_QUERY_MS = 2_000;

/** The outcome of a call to an application endpoint: the class of its status, or why there was none. */
export type EndpointOutcome = "1xx" | "2xx" | "3xx" | "4xx" | "5xx" | "timeout" | "unreachable";

export class ControllerMetrics {
  readonly registry = new Registry();
  /** Where /metrics takes its text from when not this registry alone: the workers of `serve --workers N` together. */
  private gather?: () => Promise<string>;
  readonly requests: Counter<"method" | "route" | "status">;
  readonly requestSeconds: Histogram<"method" | "route" | "status">;
  readonly endpointCalls: Counter<"method" | "outcome">;
  readonly endpointCallSeconds: Histogram<"method" | "outcome">;
  /** Reads that may go to a replica (store/replica-reads.ts), by the database that answered them, the fences they took and the replicas they passed over. */
  readonly reads: ReadCounters;

  constructor(db: Db, logger: Logger) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: "aps_http_requests_total",
      help: "HTTP requests answered, by route pattern, method and status.",
      labelNames: ["method", "route", "status"],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: "aps_http_request_duration_seconds",
      help: "Time to answer an HTTP request, by route pattern, method and status.",
      labelNames: ["method", "route", "status"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.endpointCalls = new Counter({
      name: "aps_application_calls_total",
      help: "Calls to application endpoints (operations, their async repeats, link changes, event notifications), by method and outcome.",
      labelNames: ["method", "outcome"],
      registers,
    });
    this.endpointCallSeconds = new Histogram({
      name: "aps_application_call_duration_seconds",
      help: "Time an application endpoint took to answer, by method and outcome.",
      labelNames: ["method", "outcome"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    const reads = new Counter({
      name: "aps_reads_total",
      help: "Requests that read from a replica when one has replayed the caller's writes (GET of a resource, its links, lists), by the database that answered: primary, or a replica's host:port.",
      labelNames: ["target"],
      registers,
    });
    const fences = new Counter({
      name: "aps_read_fences_total",
      help: "Queries of the primary's WAL position that reads from replicas waited for; reads arriving together share one.",
      registers,
    });
    const skips = new Counter({
      name: "aps_read_replica_skips_total",
      help: "Reads a usable replica did not answer: it had not replayed the read's fence yet (behind), or the read failed on it and was read again on the primary (failed).",
      labelNames: ["replica", "reason"],
      registers,
    });
    this.reads = {
      served: (target) => reads.inc({ target }),
      fence: () => fences.inc(),
      skipped: (replica, reason) => skips.inc({ replica, reason }),
    };
    // A scrape while the database is gone: one line for the outage, not one per gauge and scrape.
    const outage = new DatabaseOutageLog(logger, "metrics");
    const count = async (
      what: string,
      query: ReturnType<typeof sql>,
    ): Promise<{ state: string; n: number }[] | undefined> => {
      try {
        const rows = rowsOf<{ state: string; n: number }>(await withinMs(db.execute(query), GAUGE_QUERY_MS)).map(
          (r) => ({ state: r.state, n: Number(r.n) }),
        );
        outage.succeeded();
        return rows;
      } catch (error) {
        // The scrape still answers (request metrics matter most while the database is away); the gauge says "unknown".
        if (!outage.failed(error, isDatabaseUnavailable(error) || error instanceof TimedOut))
          logger.warn({ error: loggableError(error) }, `metrics: cannot count ${what}`);
        return undefined;
      }
    };
    new Gauge({
      name: "aps_task_queue_depth",
      help: "Asynchronous operations waiting to be repeated to their application; NaN when the database did not answer.",
      registers,
      // Every worker of `serve --workers N` counts the same rows: their figures are one, not a sum.
      aggregator: "first",
      async collect() {
        const rows = await count(
          "the task queue",
          sql`select 'pending' as state, count(*)::int as n from tasks where state = 'pending'`,
        );
        this.set(rows ? (rows[0]?.n ?? 0) : Number.NaN);
      },
    });
    new Gauge({
      name: "aps_event_outbox_depth",
      help: "Event notifications not delivered yet (pending) or given up (dead); NaN when the database did not answer.",
      labelNames: ["state"],
      registers,
      aggregator: "first",
      async collect() {
        const rows = await count(
          "the event outbox",
          sql`select state, count(*)::int as n from notifications group by state`,
        );
        for (const state of ["pending", "dead"])
          this.set({ state }, rows ? (rows.find((r) => r.state === state)?.n ?? 0) : Number.NaN);
      },
    });
    // Process figures (memory, CPU, event-loop lag, open handles) into this registry only.
    collectDefaultMetrics({ register: this.registry });
  }

  /** Reports each read replica's state and lag (store/read-replica.ts) on every scrape. */
  watchReplicas(statuses: () => readonly ReplicaStatus[]): void {
    const registers = [this.registry];
    new Gauge({
      name: "aps_read_replica_up",
      help: "1 while reads may go to the replica, 0 while it is skipped (unreachable, lagging, not a standby of the primary).",
      labelNames: ["replica"],
      registers,
      // Workers of `serve --workers N` each judge the replica: up only where all of them use it.
      aggregator: "min",
      collect() {
        for (const s of statuses()) this.set({ replica: s.replica }, s.state === "up" ? 1 : 0);
      },
    });
    new Gauge({
      name: "aps_read_replica_lag_seconds",
      help: "How long ago the primary was where the replica's replay is, as last measured by the reads' fences.",
      labelNames: ["replica"],
      registers,
      aggregator: "max",
      collect() {
        for (const s of statuses()) this.set({ replica: s.replica }, s.lagSeconds);
      },
    });
  }

  /** The Prometheus text /metrics answers: this registry's, or the whole deployment's once {@link gatherWith} was called. */
  text(): Promise<string> {
    return this.gather ? this.gather() : this.registry.metrics();
  }

  /**
   * Makes /metrics answer with `gather`'s text: a worker of `serve --workers N` asks the primary
   * process, which sums the registries of all workers (prom-client's AggregatorRegistry), so a
   * scrape that lands on any worker sees the deployment's requests.
   */
  gatherWith(gather: () => Promise<string>): void {
    this.gather = gather;
  }

  /** The outcome label of an endpoint call that got a reply. */
  static outcomeOf(status: number): EndpointOutcome {
    return status >= 100 && status < 600 ? (`${Math.floor(status / 100)}xx` as EndpointOutcome) : "5xx";
  }
}
