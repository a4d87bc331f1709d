/**
 * `/aps/2/applications` (provider administrators, and applications acting for the provider): the
 * application instances collection in the platform's form, as apsconnect-cli and the Connect
 * extension use it (instances/platform-install.ts). The same InstanceLifecycle serves
 * `/aps/2/instances`, aps-gen's own form of it.
 */
import { Hono } from "hono";
import { requireProviderAdmin } from "../auth/caller.ts";
import type { ControllerEnv } from "../context.ts";
import { readJsonBody, sendJson, sendList } from "../support/http-json.ts";
import type { InstanceLifecycle } from "../instances/instance-lifecycle.ts";
import { installRequestOf, platformInstanceView } from "../instances/platform-install.ts";
import type { PackageCatalog } from "../packages/catalog.ts";

const WHAT = "manage application instances";

export function applicationInstanceRoutes(service: InstanceLifecycle, catalog: PackageCatalog): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  // 200, not 201: the Connect extension takes no other status as success (oaclient:208-235, platform-forms §4 Q2).
  app.post("/", async (c) => {
    requireProviderAdmin(c.get("caller"), WHAT);
    const request = await installRequestOf(await readJsonBody(c), catalog);
    return sendJson(c, platformInstanceView(await service.install(c.get("caller"), request), catalog));
  });
  app.get("/", async (c) => {
    const list = (await service.list(c.get("caller"))).map((i) => platformInstanceView(i, catalog));
    return sendList(c, list);
  });
  app.get("/:id", async (c) =>
    sendJson(c, platformInstanceView(await service.describe(c.get("caller"), c.req.param("id")), catalog)),
  );
  // No public source shows the platform's upgrade request; this mirrors its install body (instances/upgrade-request.ts).
  app.post("/:id/upgrade", async (c) =>
    sendJson(
      c,
      platformInstanceView(
        await service.upgrade(c.get("caller"), c.req.param("id"), await readJsonBody(c), "applications"),
        catalog,
      ),
    ),
  );
  app.delete("/:id", async (c) =>
    sendJson(c, await service.uninstall(c.get("caller"), c.req.param("id"), c.req.query("force") === "true")),
  );
  return app;
}
