import pino from "pino";
import { describe, expect, it } from "vitest";
import { errorBody } from "../../runtime/common/error-body.ts";
import { createConnectorApp } from "../../runtime/connector/app.ts";
import { ConnectorError } from "../../runtime/connector/replies.ts";
import { ControllerError } from "../../runtime/controller/support/errors.ts";

/**
 * A connector answers errors in the controller's error body (runtime/common/error-body.ts): one
 * writer, so a client reads an application's error relayed by the controller as it reads the
 * controller's own.
 */
describe("the connector's error bodies", () => {
  const app = createConnectorApp({
    services: {
      items: {
        provision: () => {
          throw new ConnectorError(422, "the quota is too small");
        },
        configure: () => {
          throw new Error("the database is down");
        },
        operations: { usage: { verb: "GET", path: "/usage", handle: () => ({}) } },
      },
    },
    // No controller trusted yet: calls pass the certificate check (trust on first install).
    credentials: { save: async () => {}, load: async () => undefined, controllerCas: async () => [] },
    logger: pino({ level: "silent" }),
  });
  const call = async (method: string, path: string, body?: unknown) => {
    const reply = await app.request(path, {
      method,
      headers: { "content-type": "application/json", "aps-instance-id": "i-1" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: reply.status, body: (await reply.json()) as Record<string, unknown> };
  };

  it("a handler's ConnectorError: its status, with a class name for a status the controller has none of", async () => {
    const r = await call("POST", "/items", { aps: { type: "t" } });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      code: 422,
      type: "ClientError",
      error: "ClientError",
      message: "provision of items: the quota is too small",
    });
  });

  it("a handler that fails otherwise: 500 InternalError; a missing handler: 501 NotImplemented", async () => {
    const failed = await call("PUT", "/items/r-1", { name: "x" });
    expect(failed.status).toBe(500);
    expect(failed.body).toMatchObject({ code: 500, type: "InternalError", error: "InternalError" });
    expect(String(failed.body.message)).toContain("the database is down");
    const missing = await call("PUT", "/items/r-1/enable");
    expect(missing.status).toBe(501);
    expect(missing.body).toEqual(errorBody(501, "enable: This connector does not implement enable."));
    expect(missing.body.type).toBe("NotImplemented");
  });

  it("a path it does not serve: the same body as the controller's 404", async () => {
    const r = await call("GET", "/nothing/here");
    expect(r.status).toBe(404);
    expect(r.body).toEqual(new ControllerError(404, "This endpoint has no GET /nothing/here.").toBody());
    expect(Object.keys(r.body).sort()).toEqual(["code", "error", "message", "type"]);
  });
});
