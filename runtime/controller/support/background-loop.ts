/**
 * The loop behind the controller's background work (asynchronous tasks, event delivery,
 * provisioning intents): one pass at a time in each process; a pass that found work is followed
 * at once by the next, an idle one waits a pause, or less when nudged. The work itself is shared
 * through the database (rows claimed with `FOR UPDATE SKIP LOCKED`), so every process may run
 * the same loop.
 */

/** A pass of work: true when it did something (so the next pass should not wait). */
export type BackgroundPass = () => Promise<boolean>;

export class BackgroundLoop {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;

  /**
   * @param pass one pass of the work.
   * @param idleMs the pause after a pass that found nothing to do (or failed).
   * @param onError told of a pass that threw; the loop goes on after the pause.
   */
  constructor(
    private readonly pass: BackgroundPass,
    private readonly idleMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.work();
  }

  /** Stops after the pass in hand, and waits for it. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /** Ends the pause now (a change was just committed that the next pass should see). */
  nudge(): void {
    this.wake?.();
  }

  private async work(): Promise<void> {
    while (this.running) {
      try {
        if (await this.pass()) continue;
      } catch (error) {
        this.onError(error);
      }
      if (!this.running) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.idleMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }
}
