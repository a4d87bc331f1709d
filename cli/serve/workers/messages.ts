/**
 * What the primary process of `serve --workers N` and its workers say to each other over the
 * cluster's IPC channel, and the environment variable that makes a process a worker.
 */
import type { EndpointCallEntry, UnnumberedCallEntry } from "../../../runtime/common/endpoint-call-entry.ts";

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
  /** The port to listen on: `--port`, or the free port the primary picked for `--port 0` (shared-port.ts). */
  readonly port: number;
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

/** Worker → primary: a call it made to an application, for the console's live log (secrets already removed). */
export interface CallMade {
  readonly type: "aps-gen:call-made";
  readonly entry: UnnumberedCallEntry;
}

/** Worker → primary: the live log has its first subscriber here; send what is kept, then each new entry. */
export interface CallsFollow {
  readonly type: "aps-gen:calls-follow";
  /** Sent back with the snapshot, so that the answer to an earlier follow is told apart. */
  readonly request: number;
}

/** Worker → primary: the live log's last subscriber here has gone; send no more entries. */
export interface CallsUnfollow {
  readonly type: "aps-gen:calls-unfollow";
}

/** Primary → worker: the entries kept, oldest first, answering a follow; new ones come after it. */
export interface CallsSnapshot {
  readonly type: "aps-gen:calls-snapshot";
  readonly request: number;
  readonly entries: readonly EndpointCallEntry[];
}

/** Primary → worker that follows: a new entry of the live log, numbered, from whichever worker made the call. */
export interface CallLogged {
  readonly type: "aps-gen:call-logged";
  readonly entry: EndpointCallEntry;
}

export type WorkerMessage = ListeningMessage | MetricsRequest | CallMade | CallsFollow | CallsUnfollow;
export type PrimaryMessage = MetricsReply | DrainMessage | CallsSnapshot | CallLogged;

/** The role of this process when the primary of `serve --workers N` forked it; undefined otherwise. */
export function workerRole(env: NodeJS.ProcessEnv = process.env): WorkerRole | undefined {
  const raw = env[WORKER_ROLE_VARIABLE];
  if (!raw || !process.send) return undefined;
  const role = JSON.parse(raw) as WorkerRole;
  return {
    slot: Number(role.slot),
    loops: role.loops === true,
    migrate: role.migrate === true,
    port: Number(role.port),
  };
}

export function isMessage<T extends { type: string }>(message: unknown, type: T["type"]): message is T {
  return typeof message === "object" && message !== null && (message as { type?: unknown }).type === type;
}
