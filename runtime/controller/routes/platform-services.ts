/**
 * `/aps/2/services/<alias>`: platform singleton services reached by alias (aps-facts §8, "Platform
 * services are singleton resources reachable by alias"). aps-gen is not the platform around the
 * controller and keeps none of its services' data, so it offers only what a connector needs to
 * learn that: the resource-type manager, which apsconnect-cli asks for before it looks up billing
 * resource types (hub.py:380-446, platform-forms §1.1) - present, with no resource types, since
 * those are made through OA's `addResourceType` RPC, which aps-gen does not serve. Every other
 * alias (the Connect extension's periodic-task-manager, oaclient:81-109) is a 404 that says so.
 */
import { Hono } from "hono";
import type { ControllerEnv } from "../context.ts";
import { ControllerError } from "../support/errors.ts";
import { sendJson, sendList } from "../support/http-json.ts";

const RESOURCE_TYPE_MANAGER = "resource-type-manager";
const OFFERED = `${RESOURCE_TYPE_MANAGER} (read only, with no resource types)`;

export function platformServiceRoutes(): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  const base = `/${RESOURCE_TYPE_MANAGER}`;
  app.get(base, (c) => sendJson(c, { alias: RESOURCE_TYPE_MANAGER, resourceTypes: { href: `/aps/2/services/${RESOURCE_TYPE_MANAGER}/resourceTypes` } }));
  app.get(`${base}/resourceTypes`, (c) => sendList(c, []));
  app.get(`${base}/resourceTypes/:id`, (c) => {
    throw new ControllerError(404, `Resource type ${c.req.param("id")} does not exist: this controller keeps no billing resource types (the platform makes them with OA's addResourceType RPC, which aps-gen does not serve).`);
  });
  app.all(`${base}/*`, (c) => {
    throw new ControllerError(405, `${c.req.method} ${new URL(c.req.url).pathname} is not offered: the resource-type manager here answers GET ${base} and GET ${base}/resourceTypes[/<id>] only.`);
  });
  app.all("/*", (c) => notOffered(/\/aps\/2\/services\/+([^/]*)/.exec(new URL(c.req.url).pathname)?.[1] ?? "", c.req.method));
  return app;
}

function notOffered(alias: string, method: string): never {
  throw new ControllerError(404, `${alias ? `The platform service "${alias}" is not offered here` : "Name a platform service: /aps/2/services/<alias>"} (${method}): aps-gen runs the APS controller without the platform's services; it offers ${OFFERED}.`);
}
