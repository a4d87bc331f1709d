/**
 * The loop behind the controller's background work (asynchronous tasks, event delivery,
 * provisioning intents): one pass at a time in each process; a pass that found work is followed
 * at once by the next, an idle one waits a pause, or less when nudged. The work itself is shared
 * through the database (rows claimed with `FOR UPDATE SKIP LOCKED`), so every process may run
 * the same loop.
 *
 * A loop given a {@link DatabaseOutageLog} says once that the database is gone and once that it
 * is back, instead of reporting each failed pass, and looks at most once a second meanwhile
 * (each look while the server is down is a connection attempt; the driver backs off too).
 */
import type { DatabaseOutageLog } from "../observability/database-outage-log.ts";

/** The least pause between passes while the database cannot be reached. */
const OUTAGE_PAUSE_MS = 1_000;

/** A pass of work: true when it did something (so the next pass should not wait). */
export type BackgroundPass = () => Promise<boolean>;

export class BackgroundLoop {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;

  /**
   * @param pass one pass of the work.
   * @param idleMs the pause after a pass that found nothing to do (or failed).
   * @param onError told of a pass that threw, unless `outage` took it as the database being
   *   unreachable; the loop goes on after the pause.
   * @param outage logs the database's going and return once each.
   */
  constructor(
    private readonly pass: BackgroundPass,
    private readonly idleMs: number,
    private readonly onError: (error: unknown) => void,
    private readonly outage?: DatabaseOutageLog,
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
        const busy = await this.pass();
        this.outage?.succeeded();
        if (busy) continue;
      } catch (error) {
        if (!this.outage?.failed(error)) this.onError(error);
      }
      if (!this.running) break;
      const pause = this.outage?.down ? Math.max(this.idleMs, OUTAGE_PAUSE_MS) : this.idleMs;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pause);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }
}
