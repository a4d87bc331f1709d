/**
 * A bound on how long a probe or a scrape waits for the database: a server that does not answer
 * (a network partition: connecting waits for the driver's 30 s connect time-out) must make
 * /readyz say so and /metrics answer, in less time than the prober or scraper waits (Prometheus:
 * 10 s by default; Kubernetes probes: 1 s unless set).
 */
export class TimedOut extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = "TimedOut";
  }
}

/** `work`, or a {@link TimedOut} rejection after `ms`; the work itself goes on and is ignored. */
export function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new TimedOut(ms)), ms);
    timer.unref();
  });
  // The abandoned work may still fail later: that failure has no one to tell.
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
