/**
 * `GET /aps/2/console/calls` (provider administrators): the calls the controller makes to
 * application endpoints as server-sent events, for the console's live log (docs/console.md). Each
 * event's `data` is one EndpointCallEntry (common/endpoint-call-entry.ts) as JSON, its `id` the
 * entry's: first the calls kept in memory (observability/endpoint-call-log.ts), then each new one.
 */
import { Hono } from "hono";
import type { EndpointCallEntry } from "../../common/endpoint-call-entry.ts";
import { requireProviderAdmin } from "../auth/caller.ts";
import type { ControllerEnv } from "../context.ts";
import type { EndpointCallLog } from "../observability/endpoint-call-log.ts";

/** A comment line this often keeps proxies and browsers from closing a quiet stream. */
const KEEP_ALIVE_MS = 20_000;
/**
 * A subscriber this far behind (bytes queued and not yet read) is cut off rather than queued for
 * without bound; the browser's next connection starts again from what is kept.
 */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

export function consoleCallRoutes(calls: EndpointCallLog): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  app.get("/calls", (c) => {
    requireProviderAdmin(c.get("caller"), "follow the calls made to applications");
    const encoder = new TextEncoder();
    let stop = (): void => {};
    const body = new ReadableStream<Uint8Array>(
      {
        start(stream) {
          const send = (text: string): void => {
            if ((stream.desiredSize ?? 0) < -MAX_QUEUED_BYTES) {
              stop();
              stream.close();
              return;
            }
            stream.enqueue(encoder.encode(text));
          };
          // Written first, so a client knows at once that the stream is open.
          send(": calls to application endpoints\n\n");
          const unsubscribe = calls.subscribe((entry: EndpointCallEntry) =>
            send(`id: ${entry.id}\ndata: ${JSON.stringify(entry)}\n\n`),
          );
          const timer = setInterval(() => send(": keep-alive\n\n"), KEEP_ALIVE_MS);
          timer.unref();
          stop = () => {
            unsubscribe();
            clearInterval(timer);
          };
        },
        cancel() {
          stop();
        },
      },
      new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
    );
    return c.body(body, 200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    });
  });
  return app;
}
