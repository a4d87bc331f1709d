/**
 * The console's live log over the workers of `serve --workers N`, in process: the primary's
 * merged ring (cli/serve/workers/merged-call-log.ts) and the workers' side of it
 * (worker-call-log.ts), joined by a fake IPC channel that holds the messages until `flush` (so a
 * test can order what crosses) and passes them through JSON as node:cluster does. The real
 * processes: test/e2e/serve-workers.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { EndpointCallEntry, UnnumberedCallEntry } from "../../runtime/common/endpoint-call-entry.ts";
import { EndpointCallLog, type ObservedCall } from "../../runtime/controller/observability/endpoint-call-log.ts";
import type { TypeRegistry } from "../../runtime/controller/registry.ts";
import { MergedCallLog, type CallLogPeer } from "../../cli/serve/workers/merged-call-log.ts";
import { WorkerCallLog, type PrimaryChannel } from "../../cli/serve/workers/worker-call-log.ts";

/** A worker joined to `primary`: its live log, and every message that crossed in each direction. */
interface FakeWorker {
  readonly slot: number;
  readonly peer: CallLogPeer;
  readonly log: WorkerCallLog;
  readonly toPrimary: { type: string }[];
  readonly toWorker: { type: string }[];
  /** Ends the worker as the primary sees it: its channel is closed and nothing crosses any more. */
  die(): void;
}

function cluster(size = 200) {
  const primary = new MergedCallLog(size);
  /** Messages sent and not yet received, in the order they were sent (one queue: IPC keeps each channel's order). */
  const pending: (() => void)[] = [];
  const flush = () => {
    while (pending.length) pending.shift()!();
  };
  const worker = (slot: number): FakeWorker => {
    let alive = true;
    const listeners: ((message: unknown) => void)[] = [];
    const toPrimary: { type: string }[] = [];
    const toWorker: { type: string }[] = [];
    const peer: CallLogPeer = {
      slot,
      send: (message) => {
        if (!alive) return;
        toWorker.push(message);
        const copy = JSON.parse(JSON.stringify(message)) as unknown;
        pending.push(() => {
          if (alive) for (const listener of listeners) listener(copy);
        });
      },
    };
    const channel: PrimaryChannel = {
      send: (message) => {
        if (!alive) return;
        toPrimary.push(message);
        const copy = JSON.parse(JSON.stringify(message)) as unknown;
        pending.push(() => {
          if (alive) primary.receive(peer, copy);
        });
      },
      onMessage: (listener) => listeners.push(listener),
    };
    return {
      slot,
      peer,
      log: new WorkerCallLog(channel, size),
      toPrimary,
      toWorker,
      die: () => {
        alive = false;
        primary.forget(peer);
      },
    };
  };
  return { primary, worker, flush };
}

let made = 0;
/** An entry as a worker's EndpointCallLog makes it; `path` tells them apart. */
function entry(path = `/r/${++made}`): UnnumberedCallEntry {
  return {
    at: "2026-01-01T00:00:00.000Z",
    instance: "i-1",
    method: "POST",
    path,
    requestHeaders: {},
    outcome: "2xx",
    ms: 1,
  };
}

/** What a subscriber receives, as [id, worker, path]. */
function follow(log: WorkerCallLog) {
  const seen: EndpointCallEntry[] = [];
  const stop = log.subscribe((e) => seen.push(e));
  return { seen, stop, shown: () => seen.map((e) => [e.id, e.worker, e.path]) };
}

describe("the live log merged over the workers of serve --workers N", () => {
  it("numbers the entries of every worker in one sequence, each saying its worker, and keeps only the newest", () => {
    const { worker, flush } = cluster(3);
    const [one, two] = [worker(1), worker(2)];
    one.log.publish(entry("/a"));
    two.log.publish(entry("/b"));
    one.log.publish(entry("/c"));
    two.log.publish(entry("/d"));
    flush();
    const watcher = follow(two.log);
    flush();
    expect(watcher.shown()).toEqual([
      [2, 2, "/b"],
      [3, 1, "/c"],
      [4, 2, "/d"],
    ]);
    one.log.publish(entry("/e"));
    flush();
    expect(watcher.shown().at(-1)).toEqual([5, 1, "/e"]);
  });

  it("sends nothing to a worker until one of its subscribers follows the log, then the ring, then each new entry", () => {
    const { worker, flush } = cluster();
    const [one, two] = [worker(1), worker(2)];
    for (let i = 0; i < 5; i++) (i % 2 ? one : two).log.publish(entry());
    flush();
    // Each entry was one message to the primary, and nobody watching, nothing came back.
    expect(one.toPrimary.map((m) => m.type)).toEqual(["aps-gen:call-made", "aps-gen:call-made"]);
    expect([...one.toWorker, ...two.toWorker]).toEqual([]);
    const watcher = follow(one.log);
    flush();
    expect(watcher.seen.map((e) => e.id)).toEqual([1, 2, 3, 4, 5]);
    two.log.publish(entry("/new"));
    flush();
    expect(watcher.seen.map((e) => [e.id, e.path])).toContainEqual([6, "/new"]);
    // Only the worker with a subscriber is sent the new entry.
    expect(one.toWorker.map((m) => m.type)).toEqual(["aps-gen:calls-snapshot", "aps-gen:call-logged"]);
    expect(two.toWorker).toEqual([]);
  });

  it("replays a second subscriber of a worker from its copy, and stops the entries when the last one leaves", () => {
    const { primary, worker, flush } = cluster();
    const one = worker(1);
    one.log.publish(entry());
    flush();
    const first = follow(one.log);
    flush();
    one.log.publish(entry());
    flush();
    const second = follow(one.log);
    // Replayed at once, without asking the primary again.
    expect(second.seen.map((e) => e.id)).toEqual([1, 2]);
    expect(one.toPrimary.filter((m) => m.type === "aps-gen:calls-follow")).toHaveLength(1);
    first.stop();
    one.log.publish(entry());
    flush();
    expect(second.seen.map((e) => e.id)).toEqual([1, 2, 3]);
    expect(first.seen.map((e) => e.id)).toEqual([1, 2]);
    second.stop();
    flush();
    expect(primary.followers).toBe(0);
    const sent = one.toWorker.length;
    one.log.publish(entry());
    flush();
    expect(one.toWorker).toHaveLength(sent);
    expect(one.toPrimary.at(-2)).toEqual({ type: "aps-gen:calls-unfollow" });
  });

  it("gives subscribers who come while the ring is asked for the ring once, then what follows", () => {
    const { worker, flush } = cluster();
    const [one, two] = [worker(1), worker(2)];
    two.log.publish(entry());
    flush();
    const early = follow(one.log);
    const later = follow(one.log);
    expect(early.seen).toEqual([]);
    two.log.publish(entry());
    flush();
    for (const s of [early, later]) expect(s.seen.map((e) => e.id)).toEqual([1, 2]);
  });

  it("takes no answer to an earlier follow: when subscribers come and go quickly, each entry arrives once, in order", () => {
    const { worker, flush } = cluster();
    const [one, two] = [worker(1), worker(2)];
    two.log.publish(entry());
    flush();
    // Follow, leave and follow again before the primary has answered the first follow.
    follow(one.log).stop();
    two.log.publish(entry());
    const watcher = follow(one.log);
    two.log.publish(entry());
    flush();
    two.log.publish(entry());
    flush();
    // Two snapshots and entries in between reached the worker: the subscriber saw each entry once.
    expect(one.toWorker.filter((m) => m.type === "aps-gen:calls-snapshot")).toHaveLength(2);
    expect(watcher.seen.map((e) => e.id)).toEqual([1, 2, 3, 4]);
  });

  it("shows once an entry the primary sent for an earlier follow, which the next snapshot holds", () => {
    const { worker, flush } = cluster();
    const [one, two] = [worker(1), worker(2)];
    const leaving = follow(one.log);
    flush();
    // Sent on to worker 1 before the primary reads that its subscriber left, and before the new follow.
    two.log.publish(entry("/x"));
    leaving.stop();
    const watcher = follow(one.log);
    flush();
    expect(one.toWorker.map((m) => m.type)).toEqual([
      "aps-gen:calls-snapshot",
      "aps-gen:call-logged",
      "aps-gen:calls-snapshot",
    ]);
    expect(watcher.shown()).toEqual([[1, 2, "/x"]]);
    expect(leaving.seen).toEqual([]);
  });

  it("keeps no snapshot that comes after its subscribers left: the next subscriber gets the ring as it is then", () => {
    const { worker, flush } = cluster();
    const [one, two] = [worker(1), worker(2)];
    two.log.publish(entry("/earlier"));
    flush();
    follow(one.log).stop();
    flush();
    two.log.publish(entry("/later"));
    flush();
    const watcher = follow(one.log);
    flush();
    expect(watcher.shown()).toEqual([
      [1, 2, "/earlier"],
      [2, 2, "/later"],
    ]);
  });

  it("keeps a worker's copy of the ring bounded as the primary's", () => {
    const { worker, flush } = cluster(3);
    const one = worker(1);
    const watcher = follow(one.log);
    flush();
    for (let i = 0; i < 7; i++) one.log.publish(entry());
    flush();
    expect(watcher.seen).toHaveLength(7);
    expect(follow(one.log).seen.map((e) => e.id)).toEqual([5, 6, 7]);
  });

  it("goes on for the other workers when one that followed the log ends, keeping the calls it made", () => {
    const { primary, worker, flush } = cluster();
    const [one, two] = [worker(1), worker(2)];
    const onOne = follow(one.log);
    const onTwo = follow(two.log);
    two.log.publish(entry("/by-two"));
    flush();
    expect(primary.followers).toBe(2);
    two.die();
    expect(primary.followers).toBe(1);
    one.log.publish(entry("/after"));
    flush();
    expect(onOne.shown()).toEqual([
      [1, 2, "/by-two"],
      [2, 1, "/after"],
    ]);
    expect(onTwo.seen).toHaveLength(1);
    // Its replacement in the same slot starts with the ring, the dead worker's calls included.
    const again = worker(2);
    const onAgain = follow(again.log);
    again.log.publish(entry("/by-new-two"));
    flush();
    expect(onAgain.shown()).toEqual([
      [1, 2, "/by-two"],
      [2, 1, "/after"],
      [3, 2, "/by-new-two"],
    ]);
    expect(onOne.seen).toHaveLength(3);
  });

  it("ignores messages that are not the live log's", () => {
    const { primary, worker } = cluster();
    const one = worker(1);
    expect(primary.receive(one.peer, { type: "aps-gen:metrics-request", id: 1 })).toBe(false);
    expect(primary.receive(one.peer, "hello")).toBe(false);
    expect(primary.receive(one.peer, { type: "aps-gen:calls-unfollow" })).toBe(true);
  });
});

describe("a worker's EndpointCallLog with the log shared", () => {
  const registry = new Map([
    [
      "t:mailbox",
      {
        id: "t:mailbox",
        name: "t:mailbox",
        packageName: "t",
        ancestors: [],
        isResource: true,
        isApplication: false,
        isSuspendable: false,
        servedBy: "application",
        properties: {
          password: { kind: "string", required: false, readonly: false, final: false, encrypted: true, access: 0 },
        },
        relations: {},
        operations: {},
      },
    ],
  ]) as unknown as TypeRegistry;
  const call: ObservedCall = {
    at: new Date("2026-01-01T00:00:00Z"),
    instance: "i-1",
    method: "POST",
    path: "/mailboxes?x=1",
    headers: { "APS-Token": "secret-token", "APS-Request-Phase": "sync" },
    body: Buffer.from('{"localPart":"a","password":"pw-SECRET"}'),
    outcome: "2xx",
    status: 200,
    ms: 1,
  };

  it("sends the primary each call with its secrets already removed, keeps none itself, and follows the merged log", () => {
    const { worker, flush } = cluster();
    const [one, two] = [worker(1), worker(2)];
    const log = new EndpointCallLog(() => registry, 200, one.log);
    log.record(call);
    expect(JSON.stringify(one.toPrimary)).not.toMatch(/SECRET|secret-token/);
    expect(one.toPrimary).toEqual([
      {
        type: "aps-gen:call-made",
        entry: expect.objectContaining({ path: "/mailboxes", requestBody: '{"localPart":"a","password":"••••"}' }),
      },
    ]);
    two.log.publish(entry("/by-two"));
    flush();
    const seen: [number, number | undefined, string][] = [];
    log.subscribe((e) => seen.push([e.id, e.worker, e.path]));
    flush();
    expect(seen).toEqual([
      [1, 1, "/mailboxes"],
      [2, 2, "/by-two"],
    ]);
  });
});
