/**
 * A worker's side of the live log that the primary of `serve --workers N` merges
 * (merged-call-log.ts). Every entry the worker makes goes to the primary, one message per call
 * and nothing else in the request's path. While nobody here follows the log, that is all: the
 * primary sends nothing back. The first subscriber makes the worker ask for the merged ring; it
 * keeps a copy of it (bounded like the ring), which later subscribers are replayed from, and
 * follows the entries the primary sends until the last subscriber leaves.
 */
import type { EndpointCallEntry, UnnumberedCallEntry } from "../../../runtime/common/endpoint-call-entry.ts";
import {
  ENDPOINT_CALL_LOG_SIZE,
  type SharedEndpointCallLog,
} from "../../../runtime/controller/observability/endpoint-call-log.ts";
import {
  isMessage,
  type CallLogged,
  type CallMade,
  type CallsFollow,
  type CallsSnapshot,
  type CallsUnfollow,
} from "./messages.ts";

/** The IPC channel to the primary, as the live log uses it (the process's own in a worker: {@link primaryChannel}). */
export interface PrimaryChannel {
  send(message: CallMade | CallsFollow | CallsUnfollow): void;
  onMessage(listener: (message: unknown) => void): void;
}

type Listener = (entry: EndpointCallEntry) => void;

export class WorkerCallLog implements SharedEndpointCallLog {
  private readonly subscribers = new Set<Listener>();
  /** The merged log as the primary sent it, while someone here follows it; undefined until its snapshot comes. */
  private copy: EndpointCallEntry[] | undefined;
  /** The number of the last follow sent: only its snapshot is taken. */
  private request = 0;

  constructor(
    private readonly channel: PrimaryChannel,
    private readonly size = ENDPOINT_CALL_LOG_SIZE,
  ) {
    channel.onMessage((message) => this.receive(message));
  }

  publish(entry: UnnumberedCallEntry): void {
    this.channel.send({ type: "aps-gen:call-made", entry });
  }

  subscribe(listener: Listener): () => void {
    for (const entry of this.copy ?? []) listener(entry);
    this.subscribers.add(listener);
    if (this.subscribers.size === 1) this.channel.send({ type: "aps-gen:calls-follow", request: ++this.request });
    return () => {
      if (!this.subscribers.delete(listener) || this.subscribers.size > 0) return;
      this.copy = undefined;
      this.channel.send({ type: "aps-gen:calls-unfollow" });
    };
  }

  private receive(message: unknown): void {
    if (isMessage<CallsSnapshot>(message, "aps-gen:calls-snapshot")) {
      // An answer to an earlier follow, or to one whose subscribers have all gone since, is stale.
      if (message.request !== this.request || this.subscribers.size === 0) return;
      const entries = message.entries.slice(-this.size);
      this.copy = entries;
      // Those who subscribed while it was asked for were replayed nothing: this is their replay.
      for (const entry of entries) this.tell(entry);
    } else if (isMessage<CallLogged>(message, "aps-gen:call-logged")) {
      // Before the snapshot, an entry was sent for an earlier follow: the snapshot holds it.
      const copy = this.copy;
      if (!copy) return;
      copy.push(message.entry);
      if (copy.length > this.size) copy.shift();
      this.tell(message.entry);
    }
  }

  private tell(entry: EndpointCallEntry): void {
    for (const subscriber of this.subscribers) subscriber(entry);
  }
}

/**
 * This worker process's channel to the primary. A message that cannot be sent (the primary has
 * gone) is dropped: the worker stops then anyway, and an `error` event would end it first.
 */
export function primaryChannel(): PrimaryChannel {
  return {
    send: (message) => {
      if (process.connected) process.send!(message, () => {});
    },
    onMessage: (listener) => process.on("message", listener),
  };
}
