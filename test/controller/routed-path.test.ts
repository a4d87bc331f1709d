/**
 * Which form of a path answers for the endpoint (runtime/controller/forward/routed-path.ts), used
 * by provisioning (test/e2e/provision-path.test.ts) and event delivery (test/interop/event-path.test.ts).
 */
import { describe, expect, it } from "vitest";
import type { EndpointReply } from "../../runtime/controller/forward/endpoint-client.ts";
import { sendToRouted } from "../../runtime/controller/forward/routed-path.ts";

/** An endpoint that answers each path with a fixed status, and the paths it was sent. */
function endpoint(statuses: Record<string, number>) {
  const sent: string[] = [];
  const send = async (path: string): Promise<EndpointReply> => {
    sent.push(path);
    return { status: statuses[path] ?? 404, headers: {}, body: Buffer.from(path) };
  };
  return { sent, send };
}

describe("sendToRouted", () => {
  it("stops at the first form that is routed, whatever it answered", async () => {
    for (const status of [200, 201, 202, 400, 409, 500, 503]) {
      const e = endpoint({ "/a": status, "/a/": 201 });
      const r = await sendToRouted(["/a", "/a/"], e.send, "last");
      expect(e.sent).toEqual(["/a"]);
      expect(r).toMatchObject({ path: "/a", routed: true, reply: { status } });
    }
  });

  it("goes on after a 404, a 405 or a redirect", async () => {
    for (const status of [404, 405, 301, 302, 307, 308]) {
      const e = endpoint({ "/a": status, "/a/": 201 });
      const r = await sendToRouted(["/a", "/a/"], e.send, "first");
      expect(e.sent).toEqual(["/a", "/a/"]);
      expect(r).toMatchObject({ path: "/a/", routed: true, reply: { status: 201 } });
    }
  });

  it("when no form is routed, keeps the reply of the attempt named, and a refusal over a redirect", async () => {
    expect(await sendToRouted(["/a", "/a/"], endpoint({ "/a": 404, "/a/": 405 }).send, "last")).toMatchObject({
      path: "/a/",
      routed: false,
      reply: { status: 405 },
    });
    expect(await sendToRouted(["/a", "/a/"], endpoint({ "/a": 404, "/a/": 405 }).send, "first")).toMatchObject({
      path: "/a",
      routed: false,
      reply: { status: 404 },
    });
    expect(await sendToRouted(["/a", "/a/"], endpoint({ "/a": 404, "/a/": 307 }).send, "last")).toMatchObject({
      path: "/a",
      routed: false,
      reply: { status: 404 },
    });
    expect(await sendToRouted(["/a", "/a/"], endpoint({ "/a": 308, "/a/": 404 }).send, "first")).toMatchObject({
      path: "/a/",
      routed: false,
      reply: { status: 404 },
    });
    expect(await sendToRouted(["/a", "/a/"], endpoint({ "/a": 308, "/a/": 307 }).send, "last")).toMatchObject({
      path: "/a/",
      routed: false,
      reply: { status: 307 },
    });
  });
});
