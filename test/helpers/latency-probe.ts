/**
 * A client that sends GETs to a controller at a steady rate and times each. It runs in a process
 * of its own: a controller under test shares the test's process, and a client on the same event
 * loop would stall with it and not see the stall as latency. The rate does not slow down when
 * answers do (an "open loop"), and each GET is timed from when it was due, not from when it was
 * sent: a client that waited for each answer before the next would send one GET during a 9-second
 * stall and count it once among thousands of fast ones, hiding the stall from the percentiles.
 */
import { spawn } from "node:child_process";

/** One GET: when it was due (ms since the epoch), how long it took from then (ms), and its status. */
interface LatencySample {
  readonly at: number;
  readonly ms: number;
  readonly status: number;
}

export interface LatencyProbe {
  /** Resolves once the first GET came back. */
  readonly ready: Promise<void>;
  /** Stops sending and gives every sample. */
  stop(): Promise<LatencySample[]>;
}

// CommonJS for `node -e`: plain Node, no TypeScript, nothing from the test's process.
const PROBE = `
const https = require("node:https");
const { PROBE_URL, PROBE_CA, PROBE_TOKEN, PROBE_PATHS, PROBE_EVERY_MS } = process.env;
const agent = new https.Agent({ keepAlive: true, maxSockets: 32, ca: PROBE_CA });
const paths = JSON.parse(PROBE_PATHS);
const every = Number(PROBE_EVERY_MS);
const samples = [];
let inFlight = 0;
let stopping = false;
// A kept-alive socket the server closed as idle (its keepAliveTimeout) just as this GET took it
// fails with ECONNRESET before the server saw the request: sent again on another socket, as
// Node's documentation advises (request.reusedSocket). After a stall, a burst of due GETs takes
// sockets idle for seconds, which made this race show. Any other failure counts as status 0.
const get = (path, retried = false) => new Promise((resolve) => {
  const req = https.request(new URL(path, PROBE_URL), { agent, headers: { "aps-token": PROBE_TOKEN } }, (res) => {
    res.resume();
    res.on("end", () => resolve(res.statusCode));
  });
  req.on("error", (error) => resolve(!retried && req.reusedSocket && error.code === "ECONNRESET" ? get(path, true) : 0));
  req.end();
});
const fire = async (i, dueAt, dueEpoch) => {
  inFlight++;
  const status = await get(paths[i % paths.length]);
  samples.push({ at: dueEpoch, ms: performance.now() - dueAt, status });
  inFlight--;
  if (i === 0) process.send({ ready: true });
  if (stopping && inFlight === 0) process.send({ samples }, () => process.exit(0));
};
process.on("message", () => {
  stopping = true;
  if (inFlight === 0) process.send({ samples }, () => process.exit(0));
});
const t0 = performance.now();
const epoch0 = Date.now();
let next = 0;
const tick = () => {
  if (stopping) return;
  // Every GET that fell due since the last tick, each timed from its own due time.
  for (; t0 + next * every <= performance.now(); next++) fire(next, t0 + next * every, epoch0 + next * every);
  setTimeout(tick, Math.max(0, t0 + next * every - performance.now()));
};
tick();
`;

/** Sends a GET of `paths` (in turn) every `everyMs` to `url`, trusting `ca`, with `token`. */
export function startLatencyProbe(
  url: string,
  ca: string,
  token: string,
  paths: readonly string[],
  everyMs = 10,
): LatencyProbe {
  const child = spawn(process.execPath, ["-e", PROBE], {
    env: {
      ...process.env,
      PROBE_URL: url,
      PROBE_CA: ca,
      PROBE_TOKEN: token,
      PROBE_PATHS: JSON.stringify(paths),
      PROBE_EVERY_MS: String(everyMs),
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`the latency probe ended (${code}) before it was done`))),
  );
  exited.catch(() => {});
  const message = (key: "ready" | "samples") =>
    Promise.race([
      new Promise<any>((resolve) => {
        const on = (m: any) => {
          if (m && key in m) {
            child.off("message", on);
            resolve(m[key]);
          }
        };
        child.on("message", on);
      }),
      exited,
    ]);
  const ready = message("ready").then(() => undefined);
  return {
    ready,
    async stop() {
      const samples = message("samples");
      child.send("stop");
      return samples as Promise<LatencySample[]>;
    },
  };
}

/** The p-th percentile (0-100) of `values`, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
