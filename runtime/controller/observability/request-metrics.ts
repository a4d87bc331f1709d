/** Counts and times every request the controller answers, by route pattern (route-pattern.ts), method and status. */
import type { MiddlewareHandler } from "hono";
import type { ControllerEnv } from "../context.ts";
import type { ControllerMetrics } from "./metrics.ts";
import { routePattern } from "./route-pattern.ts";

/** The counter and histogram of one method, route and status, found once (prom-client hashes a label object on every call). */
interface Series {
  readonly count: { inc(): void };
  readonly time: { observe(value: number): void };
}

export function requestMetrics(metrics: ControllerMetrics): MiddlewareHandler<ControllerEnv> {
  // Routes are patterns and statuses few, so the map stays small.
  const series = new Map<string, Series>();
  return async (c, next) => {
    const started = performance.now();
    await next();
    const method = c.req.method;
    const route = routePattern(c);
    const status = c.res.status;
    const key = `${method} ${status} ${route}`;
    let s = series.get(key);
    if (!s) {
      const labels = { method, route, status: String(status) };
      series.set(key, (s = { count: metrics.requests.labels(labels), time: metrics.requestSeconds.labels(labels) }));
    }
    s.count.inc();
    s.time.observe((performance.now() - started) / 1000);
  };
}
