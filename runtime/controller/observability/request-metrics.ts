/** Counts and times every request the controller answers, by route pattern (route-pattern.ts), method and status. */
import type { MiddlewareHandler } from "hono";
import type { ControllerEnv } from "../context.ts";
import type { ControllerMetrics } from "./metrics.ts";
import { routePattern } from "./route-pattern.ts";

export function requestMetrics(metrics: ControllerMetrics): MiddlewareHandler<ControllerEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const labels = { method: c.req.method, route: routePattern(c), status: String(c.res.status) };
    metrics.requests.inc(labels);
    metrics.requestSeconds.observe(labels, (performance.now() - started) / 1000);
  };
}
