/**
 * What operators and their tooling ask (issue 18), outside /aps and without credentials:
 *
 * - `GET /healthz`: 200 `{"status":"ok","pid":n}` while the process serves HTTP; touches nothing else.
 * - `GET /readyz`: 200 when the database answers and is fully migrated, else 503 in the error
 *   shape of every controller error, saying which (observability/readiness.ts). With read
 *   replicas, each one's state beside it (`replicas`): a replica that is down or lagging does not
 *   make the controller unready, since reads then go to the primary (store/replica-reads.ts).
 * - `GET /metrics`: Prometheus text of this controller's registry (observability/metrics.ts), or
 *   of all the workers of `serve --workers N` summed.
 *
 * None needs the provider's token: probes and Prometheus scrape without APS credentials, and
 * nothing here names a resource, an account or a tenant (metrics are labelled by route pattern,
 * status and method). Where the controller's port is reachable from outside, keep /metrics to
 * the internal network at the proxy (README "Operating the controller").
 */
import { Hono } from "hono";
import type { Logger } from "pino";
import type { ControllerEnv } from "../context.ts";
import { ControllerError } from "../support/errors.ts";
import { sendJson } from "../support/http-json.ts";
import type { ControllerMetrics } from "../observability/metrics.ts";
import { DatabaseOutageLog } from "../observability/database-outage-log.ts";
import { readiness } from "../observability/readiness.ts";
import type { Db } from "../store/open-database.ts";
import type { ReplicaStatus } from "../store/read-replica.ts";

export function operationsRoutes(
  db: Db,
  metrics: ControllerMetrics,
  logger: Logger,
  replicas?: () => readonly ReplicaStatus[],
): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  const outage = new DatabaseOutageLog(logger, "readiness");
  // The pid tells which process answered (the workers of `serve --workers N` share one port).
  app.get("/healthz", (c) => sendJson(c, { status: "ok", pid: process.pid }));
  app.get("/readyz", async (c) => {
    const found = await readiness(db, outage);
    const state = replicas ? { ...found, replicas: replicas() } : found;
    if (state.status === "ready") return sendJson(c, state);
    // The controller's one error shape (errors.ts), with what is not ready beside it.
    return sendJson(c, { ...new ControllerError(503, state.message).toBody(), ...state }, 503);
  });
  app.get("/metrics", async (c) => c.body(await metrics.text(), 200, { "content-type": metrics.registry.contentType }));
  return app;
}
