/**
 * Runs due asynchronous tasks (docs/aps/lifecycle.md, "Asynchronous operations") in the background
 * of every controller process. Each claims one task at a time from the shared table (see
 * TaskStore.claimDue), so several processes on one PostgreSQL share the work and none runs a task
 * twice at the same time.
 */
import type { Logger } from "pino";
import { DatabaseOutageLog } from "../observability/database-outage-log.ts";
import { BackgroundLoop } from "../support/background-loop.ts";
import { loggableError } from "../support/loggable-error.ts";
import type { TaskRow, TaskStore } from "./task-store.ts";

export class TaskRunner {
  private readonly loop: BackgroundLoop;

  constructor(
    private readonly tasks: TaskStore,
    private readonly run: (task: TaskRow) => Promise<string>,
    private readonly logger: Logger,
    idleMs = 250,
  ) {
    this.loop = new BackgroundLoop(
      () => this.attemptOne(),
      idleMs,
      (error) => this.logger.error({ error: loggableError(error) }, "task attempt failed unexpectedly"),
      new DatabaseOutageLog(logger, "asynchronous tasks"),
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Stops taking tasks and waits for the one in hand. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Claims and runs one due task; false when none is due. */
  private async attemptOne(): Promise<boolean> {
    const task = await this.tasks.claimDue();
    if (!task) return false;
    const result = await this.run(task);
    this.logger.info(
      {
        task: task.id,
        operation: task.operation,
        resource: task.resourceId,
        transactionId: task.transactionId,
        attempt: task.attempts,
        result,
      },
      "task attempt",
    );
    return true;
  }
}
