/**
 * `GET /aps`: the APS API versions this controller speaks, in the platform's form
 * (https://docs.cloudblue.com/cbc/sdk/21.0/api/rest/version): `{"versions": {"<v>": {"version",
 * "href", "features"}}}`. The Connect extension reads it as a version probe, taking the largest
 * `versions.*.version` (hub/services.py:168-181, platform-forms row 37). Nothing in it is secret,
 * and clients ask before they hold any credentials, so it needs none.
 */
import { Hono } from "hono";
import type { ControllerEnv } from "../context.ts";
import { sendJson } from "../support/http-json.ts";

/**
 * The one version served: the APS 2 API under `/aps/2` (docs/aps/rest-api.md, "Versioning"). The
 * platform names its versions after its own releases (7.4.0...); aps-gen has no such release, so it
 * says 2.0.
 */
const VERSIONS = {
  versions: {
    "2.0": {
      version: "2.0.0",
      href: "/aps/2",
      features: {
        rql: [
          "and()",
          "or()",
          "not()",
          "eq()",
          "ne()",
          "ge()",
          "le()",
          "lt()",
          "gt()",
          "like()",
          "in()",
          "out()",
          "select()",
          "limit()",
          "sort()",
          "implementing()",
          "composing()",
          "linkedWith()",
        ],
      },
    },
  },
};

export function versionProbeRoutes(): Hono<ControllerEnv> {
  const app = new Hono<ControllerEnv>();
  app.get("/", (c) => sendJson(c, VERSIONS));
  return app;
}
