/**
 * One log line when a piece of background work (a loop, the readiness probe) finds the
 * database gone, and one when it finds it back, instead of a line at every tick: the task runner
 * looks every 250 ms and the event deliverer every 200 ms, so an outage of a minute would
 * otherwise log hundreds of identical errors per process, and the line that matters (since
 * when, and that the work resumed) would be lost among them. One pair per piece of work rather
 * than per process: each pair shows that this piece of work stopped and started again.
 */
import type { Logger } from "pino";
import { isDatabaseUnavailable, unavailabilityCode } from "../store/database-unavailable.ts";
import { loggableError } from "../support/loggable-error.ts";

export class DatabaseOutageLog {
  /** When this work first found the database gone (ms since the epoch); undefined while it is reachable. */
  private since: number | undefined;

  /**
   * @param logger where the two lines go.
   * @param work what is waiting, as the lines name it ("event delivery", "readiness"...).
   */
  constructor(
    private readonly logger: Logger,
    private readonly work: string,
  ) {}

  /** True from the first failure of an outage until the next success. */
  get down(): boolean {
    return this.since !== undefined;
  }

  /**
   * Tells of a failure. True when it says the database cannot be reached (logged on the first
   * of an outage only); false for any other error, which the caller logs as before.
   * `unreachable` overrides the judgement (the readiness probe counts its time-out too).
   */
  failed(error: unknown, unreachable = isDatabaseUnavailable(error)): boolean {
    if (!unreachable) return false;
    if (this.since === undefined) {
      this.since = Date.now();
      this.logger.warn(
        { work: this.work, code: unavailabilityCode(error), error: loggableError(error) },
        `${this.work}: the database cannot be reached; waiting for it`,
      );
    }
    return true;
  }

  /** Tells of a success: logs that the work resumed when it ends an outage (at warn too, so that a log kept at warn shows where it ended). */
  succeeded(): void {
    if (this.since === undefined) return;
    const seconds = Math.round((Date.now() - this.since) / 100) / 10;
    this.since = undefined;
    this.logger.warn(
      { work: this.work, downSeconds: seconds },
      `${this.work}: the database is reachable again; resumed`,
    );
  }
}
