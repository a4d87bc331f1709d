/**
 * `/aps/2/application` (docs/aps/rest-api.md, "Collections"): only for application instances, which
 * authenticate with the client certificate the controller's CA issued them. A certificate of
 * another CA, or one no instance holds (any more), is refused.
 */
import type { HttpBindings } from "@hono/node-server";
import { Hono, type Context } from "hono";
import { peerCertificate } from "../auth/peer-certificate.ts";
import type { ApplicationCaller, ApplicationService } from "../application-service.ts";
import { ControllerError } from "../support/errors.ts";
import { readJsonBody, sendJson } from "../support/http-json.ts";
import type { InstanceLookup } from "../instances/instance-lookup.ts";

type Env = { Bindings: HttpBindings; Variables: { application: ApplicationCaller } };

export function applicationRoutes(
  service: ApplicationService,
  instances: InstanceLookup,
  oauth?: (c: Context<Env>) => Promise<string | undefined>,
): Hono<Env> {
  const app = new Hono<Env>();
  app.use("*", async (c, next) => {
    const peer = peerCertificate(c);
    // Without a certificate, an OAuth signature of the instance's key (auth/oauth-verifier.ts), as FallBall and the Connect extension call.
    const signedBy = peer ? undefined : await oauth?.(c);
    if (!peer && !signedBy)
      throw new ControllerError(
        401,
        "/aps/2/application is for application instances: present the client certificate the controller issued to yours, or sign with its OAuth key.",
      );
    if (peer && !peer.authorized)
      throw new ControllerError(401, "The client certificate was not issued by this controller.");
    const instance = peer ? await instances.byFingerprint(peer.fingerprint) : await instances.byId(signedBy!);
    if (!instance)
      throw new ControllerError(
        403,
        peer
          ? "No application instance holds this certificate (was it re-issued or the instance removed?)."
          : "The instance of this OAuth key is not installed yet; /aps/2/application answers once its install is done.",
      );
    const actingAs = c.req.header("aps-resource-id");
    c.set("application", { instance, ...(actingAs ? { actingAs } : {}) });
    // Sub-requests that send the transaction back join it; say so in the reply.
    const tx = c.req.header("aps-transaction-id");
    await next();
    if (tx) c.res.headers.set("APS-Transaction-ID", tx);
  });
  app.get("/", (c) => sendJson(c, service.services(c.get("application"))));
  app.post("/:service", async (c) =>
    sendJson(c, await service.register(c.get("application"), c.req.param("service"), await readJsonBody(c)), 201),
  );
  // Links through the application API, as the Connect extension makes them (no body; 200, the only success it takes).
  app.post("/:service/:id/:relation/:target", async (c) =>
    sendJson(
      c,
      await service.link(
        c.get("application"),
        c.req.param("service"),
        c.req.param("id"),
        c.req.param("relation"),
        c.req.param("target"),
      ),
    ),
  );
  app.delete("/:service/:id/:relation/:target", async (c) => {
    await service.unlink(
      c.get("application"),
      c.req.param("service"),
      c.req.param("id"),
      c.req.param("relation"),
      c.req.param("target"),
    );
    return c.body(null, 204);
  });
  app.get("/:service/:id", async (c) =>
    sendJson(c, await service.read(c.get("application"), c.req.param("service"), c.req.param("id"))),
  );
  app.put("/:service/:id", async (c) =>
    sendJson(
      c,
      await service.configure(c.get("application"), c.req.param("service"), c.req.param("id"), await readJsonBody(c)),
    ),
  );
  app.delete("/:service/:id", async (c) => {
    await service.unregister(c.get("application"), c.req.param("service"), c.req.param("id"));
    return c.body(null, 204);
  });
  return app;
}
