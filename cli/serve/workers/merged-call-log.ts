/**
 * The console's live log of calls to applications for all the workers of `serve --workers N`,
 * kept by the primary process. Each worker sends every entry it makes, secrets already removed
 * (runtime/controller/observability/endpoint-call-log.ts); the primary numbers it, so ids
 * increase across workers and a console that reconnects to another worker sees the same ids,
 * keeps the newest in one ring of the same size as a process's own, and passes it on to the
 * workers that have a live-log subscriber at the moment (worker-call-log.ts). A worker whose
 * first subscriber arrives gets the ring first. While nobody watches, an entry costs the primary
 * its place in the ring and nothing more.
 */
import type { EndpointCallEntry, UnnumberedCallEntry } from "../../../runtime/common/endpoint-call-entry.ts";
import { ENDPOINT_CALL_LOG_SIZE } from "../../../runtime/controller/observability/endpoint-call-log.ts";
import {
  isMessage,
  type CallLogged,
  type CallMade,
  type CallsFollow,
  type CallsSnapshot,
  type CallsUnfollow,
} from "./messages.ts";

/** A worker as the merged log sees it: its slot, and a send that does nothing once the worker is gone. */
export interface CallLogPeer {
  readonly slot: number;
  send(message: CallsSnapshot | CallLogged): void;
}

export class MergedCallLog {
  private readonly entries: EndpointCallEntry[] = [];
  /** The workers with at least one live-log subscriber: the only ones new entries are sent to. */
  private readonly following = new Set<CallLogPeer>();
  private nextId = 1;

  constructor(private readonly size = ENDPOINT_CALL_LOG_SIZE) {}

  /** Acts on `message` from `peer` if it is one of the live log's; says whether it was. */
  receive(peer: CallLogPeer, message: unknown): boolean {
    if (isMessage<CallMade>(message, "aps-gen:call-made")) this.add(peer.slot, message.entry);
    else if (isMessage<CallsFollow>(message, "aps-gen:calls-follow")) this.follow(peer, message.request);
    else if (isMessage<CallsUnfollow>(message, "aps-gen:calls-unfollow")) this.following.delete(peer);
    else return false;
    return true;
  }

  /** A worker that ended: nothing more is sent to it. The calls it made stay in the ring. */
  forget(peer: CallLogPeer): void {
    this.following.delete(peer);
  }

  /** How many workers follow the log now. */
  get followers(): number {
    return this.following.size;
  }

  private add(slot: number, made: UnnumberedCallEntry): void {
    const entry: EndpointCallEntry = { id: this.nextId++, ...made, worker: slot };
    this.entries.push(entry);
    if (this.entries.length > this.size) this.entries.shift();
    const logged: CallLogged = { type: "aps-gen:call-logged", entry };
    for (const peer of this.following) peer.send(logged);
  }

  /**
   * The snapshot first, then the worker follows: messages to one worker arrive in the order they
   * were sent, so it gets every later entry after the snapshot and none twice.
   */
  private follow(peer: CallLogPeer, request: number): void {
    peer.send({ type: "aps-gen:calls-snapshot", request, entries: [...this.entries] });
    this.following.add(peer);
  }
}
