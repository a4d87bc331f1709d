/**
 * Runs due asynchronous tasks (SPEC 3) in the background of every controller process. Each
 * claims one task at a time from the shared table (see TaskStore.claimDue), so several
 * processes on one PostgreSQL share the work and none runs a task twice at the same time.
 */
import type { Logger } from "pino";
import { loggableError } from "../loggable-error.ts";
import type { TaskRow, TaskStore } from "./task-store.ts";

export class TaskRunner {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;

  constructor(
    private readonly tasks: TaskStore,
    private readonly run: (task: TaskRow) => Promise<string>,
    private readonly logger: Logger,
    private readonly idleMs = 250,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.work();
  }

  /** Stops taking tasks and waits for the one in hand. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  private async work(): Promise<void> {
    while (this.running) {
      let task: TaskRow | undefined;
      try {
        task = await this.tasks.claimDue();
        if (task) {
          const result = await this.run(task);
          this.logger.info({ task: task.id, operation: task.operation, resource: task.resourceId, attempt: task.attempts, result }, "task attempt");
          continue;
        }
      } catch (error) {
        this.logger.error({ task: task?.id, error: loggableError(error) }, "task attempt failed unexpectedly");
      }
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
