/** Asynchronous operations (docs/aps/lifecycle.md, "Asynchronous operations") as `/aps/2/tasks` (provider administrators) lists them. */

/** A task with its APS-Info, attempts and last error. */
export interface TaskInfo {
  readonly id: string;
  /** The resource the operation is for. */
  readonly resource: string;
  /** provision, configure or unprovision. */
  readonly operation: string;
  /** pending, done or failed. */
  readonly state: string;
  /** `APS-Info` of the application's last 202. */
  readonly info: string | null;
  readonly attempts: number;
  readonly retryAt: string;
  readonly lastError: string | null;
  readonly created: string;
}
