/**
 * What the primary process of `serve --workers N` and its workers say to each other over the
 * cluster's IPC channel, and the environment variable that makes a process a worker.
 */

/** Set by the primary on each worker it forks: the worker's role, as JSON. */
export const WORKER_ROLE_VARIABLE = "APS_GEN_SERVE_WORKER";

/** What a worker is told to be. */
export interface WorkerRole {
  /** 1..N; a worker started again after it ended keeps its slot. */
  readonly slot: number;
  /** Whether it runs the polling loops (tasks, intents, events, pruning): slot 1 only. */
  readonly loops: boolean;
  /** Whether it applies migrations (`serve`'s --migrate): the first start of slot 1 only. */
  readonly migrate: boolean;
}

/** Worker → primary: it listens (the primary prints the first one's as serve's start lines). */
export interface ListeningMessage {
  readonly type: "aps-gen:listening";
  readonly slot: number;
  readonly url: string;
  readonly caCertPath: string;
  readonly accountId: string;
  readonly adminTokenPath: string;
  readonly database: string;
}

/** Worker → primary: the /metrics text of all workers, please. */
export interface MetricsRequest {
  readonly type: "aps-gen:metrics-request";
  readonly id: number;
}

/** Primary → worker: the text asked for, or why there is none. */
export interface MetricsReply {
  readonly type: "aps-gen:metrics-reply";
  readonly id: number;
  readonly text?: string;
  readonly error?: string;
}

/** Primary → worker: stop taking requests, finish those in hand, exit. */
export interface DrainMessage {
  readonly type: "aps-gen:drain";
}

export type WorkerMessage = ListeningMessage | MetricsRequest;
export type PrimaryMessage = MetricsReply | DrainMessage;

/** The role of this process when the primary of `serve --workers N` forked it; undefined otherwise. */
export function workerRole(env: NodeJS.ProcessEnv = process.env): WorkerRole | undefined {
  const raw = env[WORKER_ROLE_VARIABLE];
  if (!raw || !process.send) return undefined;
  const role = JSON.parse(raw) as WorkerRole;
  return { slot: Number(role.slot), loops: role.loops === true, migrate: role.migrate === true };
}

export function isMessage<T extends { type: string }>(message: unknown, type: T["type"]): message is T {
  return typeof message === "object" && message !== null && (message as { type?: unknown }).type === type;
}
