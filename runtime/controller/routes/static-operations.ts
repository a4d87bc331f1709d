/**
 * `/aps/2/static/<url-encoded type id>/<path>`: static custom operations (docs/aps/rest-api.md,
 * "Custom operations"), which belong to a type rather than to a resource. The APS documents give the
 * application side only; this address is aps-gen's choice (see README).
 */
import { Hono } from "hono";
import type { ControllerEnv } from "../context.ts";
import { decodePathText } from "../support/path-text.ts";
import { lazyBody } from "../support/request-body.ts";
import type { CustomOperations } from "../operations/custom-operations.ts";

export function staticOperationRoutes(service: CustomOperations): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  app.on(["GET", "POST", "PUT", "DELETE"], "/:type/*", async (c) => {
    const url = new URL(c.req.url);
    const encoded = url.pathname.replace(/^.*?\/aps\/2\/static\//, "").split("/")[0]!;
    const rest = url.pathname.slice(url.pathname.indexOf(encoded) + encoded.length);
    // The body is read (within its limit) only once the operation is found and allowed.
    const reply = await service.onType(
      c.get("caller"),
      decodePathText(encoded, "type id"),
      c.req.method,
      rest,
      url.search.slice(1),
      lazyBody(c),
    );
    const type = reply.headers["content-type"];
    return new Response(reply.status === 204 ? null : new Uint8Array(reply.body), {
      status: reply.status,
      headers: typeof type === "string" ? { "content-type": type } : {},
    });
  });
  return app;
}
