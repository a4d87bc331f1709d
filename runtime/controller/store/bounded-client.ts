/**
 * The controller's postgres.js client with at most as many statements in flight as it has
 * connections. Past that, postgres.js sends a statement on a connection that is still busy, and
 * its connection queue (postgres 3.4.9 `src/queue.js:11`, `move` in `src/index.js:308`) then
 * grows its array by one empty slot per statement and searches it with `indexOf` for each one,
 * as long as the queue never drains: under sustained load every query got slower with the number
 * of queries sent (32 → 49 µs per primary-key select over 120,000 of them; flat at about 36 µs
 * with this bound: docs/performance.md). Statements past the bound wait here, in order, in a
 * queue whose operations cost the same whatever its length.
 *
 * `unsafe` (every statement drizzle and `executePrepared` send) and `begin` (a transaction, which
 * holds its connection until it ends; the statements inside run on that connection, not through
 * here) take a place; everything else is the client's own.
 */
import type { Sql } from "postgres";

/** A first-in first-out queue of waiters with O(1) push and shift, whatever its length. */
class WaitQueue {
  private head: { resume: () => void; next?: WaitQueue["head"] } | undefined;
  private tail: WaitQueue["head"];

  push(resume: () => void): void {
    const node = { resume };
    if (this.tail) this.tail.next = node;
    else this.head = node;
    this.tail = node;
  }

  shift(): (() => void) | undefined {
    const node = this.head;
    if (!node) return undefined;
    this.head = node.next;
    if (!this.head) this.tail = undefined;
    return node.resume;
  }
}

/** Runs work with at most `max` pieces of it in flight. */
class Bound {
  private inFlight = 0;
  private readonly waiting = new WaitQueue();

  constructor(private readonly max: number) {}

  async run<T>(work: () => PromiseLike<T>): Promise<T> {
    if (this.inFlight >= this.max) await new Promise<void>((resume) => this.waiting.push(resume));
    else this.inFlight++;
    try {
      return await work();
    } finally {
      // The place goes straight to the next waiter, if any; else it is free.
      const next = this.waiting.shift();
      if (next) next();
      else this.inFlight--;
    }
  }
}

/** `client` with statements bounded to `max` in flight (its pool size). */
export function boundedClient(client: Sql, max: number): Sql {
  const bound = new Bound(max);
  const unsafe = (query: string, params?: unknown[], options?: unknown) => {
    // postgres.js runs a statement when it is awaited, in the shape asked for (rows, or `values()`).
    const run = <T>(shape: (pending: ReturnType<Sql["unsafe"]>) => PromiseLike<T>) => bound.run(() => shape(client.unsafe(query, params as never, options as never)));
    return {
      then: <A, B>(resolve?: (rows: unknown) => A, reject?: (error: unknown) => B) => run((pending) => pending).then(resolve, reject),
      values: () => run((pending) => pending.values()),
    };
  };
  const begin = (...args: unknown[]) => bound.run(() => (client.begin as (...a: unknown[]) => PromiseLike<unknown>)(...args));
  return new Proxy(client, {
    get(target, key, receiver) {
      if (key === "unsafe") return unsafe;
      if (key === "begin") return begin;
      return Reflect.get(target, key, receiver);
    },
  });
}
