/** A worker that served at least this long before it ended was not failing at start: it is replaced at once. */
const SETTLED_MS = 10_000;
/** The first wait after a worker that ended soon after it started; doubled for each further one. */
const FIRST_WAIT_MS = 500;
/** The longest wait between two starts of a worker that keeps ending at once. */
const LONGEST_WAIT_MS = 30_000;

/**
 * When to start a worker of `serve --workers N` again after it ended: at once after one that had
 * been serving a while (a crash), later and later after each that ended soon after it started
 * (a database away, a bad deployment), so one that cannot start is not forked in a loop.
 * One per worker slot.
 */
export class RestartBackoff {
  private quickEnds = 0;

  /** The wait before the next start, given how long the one that ended had run. */
  waitAfter(ranMs: number): number {
    if (ranMs >= SETTLED_MS) {
      this.quickEnds = 0;
      return 0;
    }
    this.quickEnds++;
    return Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** (this.quickEnds - 1));
  }
}
