/**
 * The answer of a run that starts after the caller asked, shared by everyone who asks before it
 * starts: at most one run in flight and one waiting behind it, however many callers there are.
 *
 * The read fence (replica-reads.ts) is built on it. A read must compare a replica with the
 * primary's WAL position taken after the read arrived: a position taken earlier may predate a
 * write the caller saw acknowledged just before sending the read. A run already in flight when
 * the caller asks started too early, so the caller waits for the next one, which every caller
 * arriving meanwhile shares (the "read index" of Raft, section 6.4 of
 * https://raft.github.io/raft.pdf, batched the same way). The server's cost is then one query
 * per round trip at most, whatever the number of reads.
 */
export class NextRun<T> {
  private running: Promise<T> | undefined;
  private queued: Promise<T> | undefined;

  constructor(private readonly run: () => Promise<T>) {}

  /** The answer of the first run that starts after this call (the run it starts, or the one queued behind the run in flight). */
  next(): Promise<T> {
    if (this.queued) return this.queued;
    if (!this.running) return this.start();
    const current = this.running;
    const settled = () => undefined;
    this.queued = current.then(settled, settled).then(() => {
      this.queued = undefined;
      return this.start();
    });
    return this.queued;
  }

  private start(): Promise<T> {
    const run = this.run();
    this.running = run;
    const done = () => {
      if (this.running === run) this.running = undefined;
    };
    // Registered before any queued run's continuation: the slot is free when that one starts.
    run.then(done, done);
    return run;
  }
}
